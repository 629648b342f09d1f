# ifsim plot: a replay summary CSV (ifsim replay --summary-csv), the
# step-time breakdown: a stacked bar per job, compute then the exposed
# communication per group, the step time marked.
# Set before this by ifsim plot: the terminal and output, TITLE, NOTE,
# UNIT ('us' or 'ms'), N (jobs), the job labels (xtics), $D, a row per
# job: compute tp dp pp ep edp world step, in UNIT, and SHOW[7], 1 for
# the parts some job has (the others are left out of the legend).
set title TITLE . (NOTE eq '' ? '' : "\n" . NOTE)
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border rgb 'black'
set boxwidth 0.6
set xrange [-0.6:N - 0.4]
set yrange [0:*]
set ylabel sprintf('time per step (%s)', UNIT)
set grid ytics
set key outside right top
if (N > 6) {
  set xtics rotate by -30
}
array PART[7] = ['compute', 'exposed TP', 'exposed DP', 'exposed PP', \
                 'exposed EP', 'exposed EDP', 'exposed world']
array COLOUR[7] = ['#9e9e9e', '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', \
                   '#8c564b', '#9467bd']
plot for [i = 1:7] $D using i lc rgb COLOUR[i] \
       title (SHOW[i] ? PART[i] : ''), \
     $D using ($0 - 0.4):8:(0.8):(0) with vectors nohead lw 3 \
     lc rgb 'black' title 'step time'
