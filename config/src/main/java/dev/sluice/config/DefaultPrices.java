package dev.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The price table shipped in the jar, read the way a config's own {@code prices:} are: the same
 * parser, binder and validation, so an entry that would be an error in a config file is an error
 * here too. Written in YAML ({@code config/src/main/prices/default-prices.yaml}), checked and
 * turned into the JSON resource next to this class by the build ({@link DefaultPricesJson}). The
 * table is read once, on first use. A table that cannot be read must not break the host: it
 * yields no prices and keeps its problems, which a test of the build asserts are none.
 */
final class DefaultPrices {
    static final String RESOURCE = "default-prices.json";
    static final List<String> KEYS = List.of("asOf", "source", "currency", "prices");

    /** The table as shipped. */
    static final Table TABLE = load();

    private DefaultPrices() {}

    /** A price table with its date, source and currency; no entries when it has problems. */
    static final class Table {
        final String asOf;
        final String source;
        final String currency;
        final List<PriceConfig> entries;
        final List<ConfigProblem> problems;

        Table(String asOf, String source, String currency, List<PriceConfig> entries) {
            this(asOf, source, currency, entries, List.of());
        }

        private Table(
                String asOf, String source, String currency, List<PriceConfig> entries, List<ConfigProblem> problems) {
            this.asOf = asOf;
            this.source = source;
            this.currency = currency;
            this.entries = problems.isEmpty() ? List.copyOf(entries) : Collections.emptyList();
            this.problems = List.copyOf(problems);
        }
    }

    private static Table load() {
        try (InputStream in = DefaultPrices.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return failed("not found next to " + DefaultPrices.class.getName());
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE, DocumentParser.Format.JSON);
        } catch (IOException | RuntimeException e) {
            return failed("cannot read: " + e);
        }
    }

    private static Table failed(String why) {
        return new Table(
                null, null, null, List.of(), List.of(ConfigProblem.at("", null, why, Location.inFile(RESOURCE, 1, 1))));
    }

    /** Parses and checks a price table document. */
    static Table parse(String text, String name, DocumentParser.Format format) {
        List<ConfigProblem> problems = new ArrayList<>();
        Node.MapNode root = DocumentParser.parse(text, format, name, problems);
        ConfigBinder binder = new ConfigBinder();
        Table table = binder.bindPriceTable(root);
        problems.addAll(binder.problems());
        Issues issues = new Issues();
        required(table.asOf, "asOf", issues);
        required(table.source, "source", issues);
        required(table.currency, "currency", issues);
        for (int i = 0; i < table.entries.size(); i++) {
            table.entries.get(i).validate(Issues.index("", "prices", i), issues);
        }
        PriceConfig.checkNames(table.entries, "prices", issues);
        for (Issues.Issue issue : issues.list()) {
            if (!binder.covers(issue.path)) {
                problems.add(ConfigProblem.at(issue.path, issue.value, issue.message, binder.locate(issue.path)));
            }
        }
        return new Table(table.asOf, table.source, table.currency, table.entries, problems);
    }

    private static void required(String value, String path, Issues issues) {
        if (value == null || value.trim().isEmpty()) {
            issues.missing(path);
        }
    }
}
