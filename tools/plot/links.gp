# ifsim plot: a links CSV (ifsim run --links-csv), the link-utilization
# heatmap: a row per source node, a column per destination node, the
# colour the highest utilization of the channels between them (grey: no
# channel).
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE
# (which nodes were kept, when not all), NODES, the node labels (xtics and
# ytics, 0..NODES-1) and $D, a row per cell: dst src utilization.
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set xrange [-0.5:NODES - 0.5]
set yrange [NODES - 0.5:-0.5]
set xtics rotate by -90 scale 0
set ytics scale 0
if (NODES > 24) {
  set xtics font ',7'
  set ytics font ',7'
}
set xlabel 'destination'
set ylabel 'source'
set cbrange [0:1]
set cblabel 'utilization'
set palette defined (0 '#ffffff', 0.25 '#fee391', 0.5 '#fe9929', \
                     0.75 '#cc4c02', 1 '#662506')
set object 1 rectangle from graph 0, 0 to graph 1, 1 behind \
    fillcolor rgb '#d9d9d9' fillstyle solid noborder
set size ratio -1
plot $D using 1:2:($1 - 0.5):($1 + 0.5):($2 - 0.5):($2 + 0.5):3 \
     with boxxyerror fillstyle solid noborder fillcolor palette notitle
