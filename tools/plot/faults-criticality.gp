# ifsim plot: an ifsim faults --criticality CSV, the slowdown of the
# largest size with each element down alone: a bar per element, worst on
# top; elements that cut the job drawn past the others in grey.
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE,
# N (bars), SIZE (the size's label), the y tics (element names) and $D,
# a row per bar: slowdown, cut (1: the element cut the job).
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set xlabel sprintf('slowdown at %s (time over the baseline with nothing down)', SIZE)
set yrange [N - 0.5:-0.5]
set xrange [*:*]
set offsets graph 0, graph 0.05, 0, 0
set style fill solid 0.85 border rgb 'black'
set grid xtics
set ytics font ',9'
unset key
plot $D using (1):0:(1):1:($0 - 0.38):($0 + 0.38):(int($2) ? 0x9e9e9e : 0xd62728) \
     with boxxyerror lc rgb variable
