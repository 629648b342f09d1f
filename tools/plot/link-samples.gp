# ifsim plot: a link samples CSV (--link-samples), utilization over time:
# a row per link (the hottest on top), a box per sample from its time to
# the next sample time, the colour its utilization (grey: no sample).
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE
# (which links were kept, when not all), LINKS, the link labels (ytics,
# 0..LINKS-1) and $D, a row per sample: from_us to_us row utilization.
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set yrange [LINKS - 0.5:-0.5]
set ytics scale 0
if (LINKS > 24) {
  set ytics font ',7'
}
set xlabel 'time (us)'
set cbrange [0:1]
set cblabel 'utilization'
set palette defined (0 '#ffffff', 0.25 '#fee391', 0.5 '#fe9929', \
                     0.75 '#cc4c02', 1 '#662506')
set object 1 rectangle from graph 0, 0 to graph 1, 1 behind \
    fillcolor rgb '#d9d9d9' fillstyle solid noborder
plot $D using (($1 + $2) / 2):3:1:2:($3 - 0.5):($3 + 0.5):4 \
     with boxxyerror fillstyle solid noborder fillcolor palette notitle
