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
# one legend, inside the first panel at its top left (bandwidth is low at
# small sizes); the lines of every panel are the same points in the same
# order, told apart by colour, dash and marker where they coincide
set key top left Left reverse box opaque font ',10'
if (PANELS > 1) {
  set multiplot layout ROWS, COLS title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
}
do for [p = 1:PANELS] {
  if (PANELS > 1) {
    set title PANEL_TITLE[p]
  } else {
    set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
  }
  if (p > 1) {
    unset key
  }
  plot for [i = FIRST[p]:LAST[p]] $D index i using 1:2 with linespoints \
       lw 2 lc (i - FIRST[p] + 1) dt 1 + (i - FIRST[p]) % 4 \
       pt ((i - FIRST[p]) % 6 + 4) ps 1.0 title LEGEND[i + 1]
}
if (PANELS > 1) {
  unset multiplot
}
