# ifsim plot: a sweep CSV (ifsim sweep), bus bandwidth per message size.
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE,
# PANELS (collectives), ROWS x COLS (their layout), PANEL_TITLE[p],
# FIRST[p]..LAST[p] (the blocks of $D in panel p, counted from 0),
# LEGEND[i + 1] (block i's point: KEY=VALUE, ...), the size axis (xrange,
# xtics) and $D, one block "size_bytes busbw_GBps" per (collective, point).
set logscale x 2
set xlabel 'message size (bytes)'
set ylabel 'bus bandwidth (GB/s)'
set yrange [0:*]
set grid
set key below
if (PANELS > 1) {
  set multiplot layout ROWS, COLS title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
}
do for [p = 1:PANELS] {
  if (PANELS > 1) {
    set title PANEL_TITLE[p]
  } else {
    set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
  }
  plot for [i = FIRST[p]:LAST[p]] $D index i using 1:2 with linespoints \
       lw 2 pt 7 ps 0.6 title LEGEND[i + 1]
}
if (PANELS > 1) {
  unset multiplot
}
