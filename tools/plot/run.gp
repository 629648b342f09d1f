# ifsim plot: run CSVs (ifsim run --csv), bus bandwidth per message size.
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE,
# N (files), LEGEND[1..N], the size axis (xrange, xtics) and $D, one block
# "size_bytes busbw_GBps" per file (index 0..N-1).
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set logscale x 2
set xlabel 'message size (bytes)'
set ylabel 'bus bandwidth (GB/s)'
set yrange [0:*]
set grid
set key top left box opaque
plot for [i=1:N] $D index (i - 1) using 1:2 with linespoints \
     lw 2 pt 7 ps 0.6 title LEGEND[i]
