#!/bin/sh
# The SASS of the Kuramoto mean-field step kernels, built-in against
# declared (issue 50), with Nsight Compute's executed-instruction counts per
# instruction (SourceCounters, the source page as CSV).  One device call:
#   sh bench/s16-sass.sh        (carry .r-runtime; files under $OUT)
set -u
OUT=${OUT:-/tmp/out}
W=/tmp/s16sass
mkdir -p "$OUT" "$W"
if [ ! -f /tmp/sp-installed ]; then
  sh .r-runtime/install.sh > "$W/install.log" 2>&1 || { tail -20 "$W/install.log"; exit 1; }
  R CMD INSTALL . > "$W/pkg.log" 2>&1 || { tail -40 "$W/pkg.log"; exit 1; }
  touch /tmp/sp-installed
fi
ncu --help | grep -i -A2 "print-source\|--page" | head -20
for c in ${SASS_CASES:-"kur-mf-euler"}; do
  for e in builtin declared; do
    timeout 120 ncu --section SourceCounters --section InstructionStats \
      -k 'regex:sp_(kur_mf|mb_(euler|p1|p2))' --launch-skip 2 --launch-count 1 \
      -f -o "$W/rep-$c-$e" Rscript bench/s16-case.R "$c" "$e" 4 > "$W/run-$c-$e.log" 2>&1
    tail -2 "$W/run-$c-$e.log"
    ncu -i "$W/rep-$c-$e.ncu-rep" --page source --csv --print-source sass > "$OUT/sass-$c-$e.csv" 2> "$W/err"
    cat "$W/err" | head -5
    ncu -i "$W/rep-$c-$e.ncu-rep" --page details --csv > "$OUT/details-$c-$e.csv" 2>&1
    wc -l "$OUT/sass-$c-$e.csv"
  done
done
