# ifsim plot: an ifsim faults --random CSV, the distribution of the
# largest size's slowdown over the draws: a step CDF per count of elements.
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE,
# N (counts), LEGEND[1..N], SIZE (the size's label) and $D, one block per
# count (index 0..N-1) of rows "slowdown fraction_of_draws", sorted.
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set xlabel sprintf('slowdown at %s (time over the baseline with nothing down)', SIZE)
set ylabel 'fraction of draws at or below'
set yrange [0:1.02]
set grid
set key bottom right box opaque
plot for [i=1:N] $D index (i - 1) using 1:2 with steps lw 2 title LEGEND[i]
