#!/bin/bash
# Which part of the agent's JVM 2 MB pages help: its code cache, its heap, or both
# (docs/percall-figures.md, "2 MB pages").
#
#   benchmarks/scripts/thp-split.sh MODE OUT [CLIENT]     MODE: none, code, heap or both; CLIENT: jdk (default)
#   (PAIRED_ARGS="windows seconds client callers warm-up rounds" replaces the harness's 8 6 CLIENT 1 15 2)
#
# Runs the paired per-call harness (two rounds, one caller, the replaying provider). At 8 and 13 s
# of each agent JVM's life, before its warm-up ends, puts the chosen ranges on 2 MB pages with
# thp-collapse (built here with gcc; Linux 6.1+, as root). Every mode queries the JVM with jcmd at
# the same moments, so the runs differ only in the collapse. The agent's JVM commits 64 MB of each
# code heap up front, so that its compiled code lies in whole 2 MB chunks of one mapping.
# Run from the repository root after mvn -B -q -pl agent,benchmarks -am package -DskipTests.
set -u
MODE=$1; OUT=$2; CLIENT=${3:-jdk}
case $MODE in none|code|heap|both) ;; *) echo "MODE: none, code, heap or both, not $MODE" >&2; exit 2;; esac
TOOL=benchmarks/target/thp-collapse
[ -x $TOOL ] || gcc -O2 -o $TOOL benchmarks/scripts/thp-collapse.c || exit 1
JAR=${SLUICE_AGENT_JAR:-agent/target/sluice-agent.jar}
SLUICE_AGENT_JAR=$JAR java -Dsluice.overhead.provider=replay \
    -DagentJvmOptions="-XX:ReservedCodeCacheSize=240m -XX:InitialCodeCacheSize=64m" \
    -cp benchmarks/target/sluice-benchmarks.jar \
    dev.sluice.benchmarks.overhead.CallOverhead paired ${PAIRED_ARGS:-8 6 $CLIENT 1 15 2} > "$OUT" 2>&1 &
HARNESS=$!
declare -A collapsedAt
while kill -0 $HARNESS 2>/dev/null; do
    for pid in $(pgrep -f "javaagent:$JAR.*CallLoadApp"); do
        age=$(ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' ')
        [ -z "$age" ] && continue
        for at in 8 13; do
            if [ "$age" -ge $at ] && [ -z "${collapsedAt[$pid-$at]:-}" ]; then
                collapsedAt[$pid-$at]=1
                # Compiler.codecache: each code heap's "bounds [low, committed, reserved end]"
                code=$(jcmd "$pid" Compiler.codecache 2>/dev/null | grep -o 'bounds \[[^]]*\]' \
                    | sed -E 's/bounds \[0x([0-9a-f]+), 0x[0-9a-f]+, 0x([0-9a-f]+)\]/\1 \2/')
                heap=$(jcmd "$pid" GC.heap_info 2>/dev/null | grep -o '\[0x[0-9a-f]*, 0x[0-9a-f]*)' | head -1 \
                    | sed -E 's/\[0x([0-9a-f]+), 0x([0-9a-f]+)\)/\1 \2/')
                said=""
                if [ "$MODE" = code ] || [ "$MODE" = both ]; then
                    while read -r low high; do
                        [ -n "$low" ] && said="$said code: $($TOOL "$pid" "$low" "$high")"
                    done <<< "$code"
                fi
                if [ "$MODE" = heap ] || [ "$MODE" = both ]; then
                    read -r low high <<< "$heap"
                    said="$said heap: $($TOOL "$pid" "$low" "$high")"
                fi
                echo "THP pid $pid at ${age}s, mode $MODE:$said; AnonHugePages" \
                    "$(awk '/AnonHugePages/ {print $2}' /proc/"$pid"/smaps_rollup) kB" >> "$OUT.pages"
            fi
        done
    done
    sleep 1
done
wait $HARNESS
cat "$OUT.pages" >> "$OUT" 2>/dev/null; rm -f "$OUT.pages"
