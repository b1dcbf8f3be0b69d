package dev.sluice.agent.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One scrape's metric families, filled point by point and built once: counters, gauges and
 * summaries keyed by name, in the order first met. A name met twice with the same labels keeps
 * the sum of both (tenants folded into {@code other}).
 */
final class Families {

    private final Map<String, Family> families = new LinkedHashMap<>();

    /** A counter's point (the name without {@code _total}). */
    void counter(String name, String help, double value, String... labels) {
        family(name, help, Kind.COUNTER, null).add(Labels.of(labels), value);
    }

    void gauge(String name, String help, double value, String... labels) {
        family(name, help, Kind.GAUGE, null).add(Labels.of(labels), value);
    }

    /** A gauge in seconds: {@code name} ends with {@code _seconds}. */
    void seconds(String name, String help, double value, String... labels) {
        family(name, help, Kind.GAUGE, Unit.SECONDS).add(Labels.of(labels), value);
    }

    void summary(String name, String help, long count, double[] quantiles, double[] values, String... labels) {
        Family f = family(name, help, Kind.SUMMARY, Unit.SECONDS);
        Quantiles.Builder q = Quantiles.builder();
        for (int i = 0; i < quantiles.length; i++) {
            q.quantile(new Quantile(quantiles[i], values[i]));
        }
        f.summary.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                .labels(Labels.of(labels))
                .count(count)
                .quantiles(q.build())
                .build());
    }

    private Family family(String name, String help, Kind kind, Unit unit) {
        Family f = families.get(name);
        if (f == null) {
            f = new Family(name, help, kind, unit);
            families.put(name, f);
        }
        return f;
    }

    MetricSnapshots build() {
        MetricSnapshots.Builder all = MetricSnapshots.builder();
        for (Family f : families.values()) {
            MetricSnapshot s = f.build();
            if (s != null) {
                all.metricSnapshot(s);
            }
        }
        return all.build();
    }

    private enum Kind {
        COUNTER,
        GAUGE,
        SUMMARY
    }

    private static final class Family {
        final String name;
        final String help;
        final Kind kind;
        final Unit unit;
        final Map<Labels, double[]> points = new LinkedHashMap<>();
        final SummarySnapshot.Builder summary;

        Family(String name, String help, Kind kind, Unit unit) {
            this.name = name;
            this.help = help;
            this.kind = kind;
            this.unit = unit;
            this.summary = kind == Kind.SUMMARY
                    ? SummarySnapshot.builder().name(name).help(help).unit(unit)
                    : null;
        }

        void add(Labels labels, double value) {
            double[] sum = points.get(labels);
            if (sum == null) {
                points.put(labels, new double[] {value});
            } else {
                sum[0] += value;
            }
        }

        MetricSnapshot build() {
            if (kind == Kind.SUMMARY) {
                return summary.build();
            }
            if (points.isEmpty()) {
                return null;
            }
            if (kind == Kind.COUNTER) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
                for (Map.Entry<Labels, double[]> p : points.entrySet()) {
                    b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(p.getKey())
                            .value(p.getValue()[0])
                            .build());
                }
                return b.build();
            }
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            if (unit != null) {
                b.unit(unit);
            }
            for (Map.Entry<Labels, double[]> p : points.entrySet()) {
                b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(p.getKey())
                        .value(p.getValue()[0])
                        .build());
            }
            return b.build();
        }
    }
}
