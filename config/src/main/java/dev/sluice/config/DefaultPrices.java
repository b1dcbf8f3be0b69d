package dev.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

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

    /** The table as shipped. */
    static final PriceTable TABLE = load();

    private DefaultPrices() {}

    private static PriceTable load() {
        try (InputStream in = DefaultPrices.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return failed("not found next to " + DefaultPrices.class.getName());
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE, DocumentParser.Format.JSON);
        } catch (IOException | RuntimeException e) {
            return failed("cannot read: " + e);
        }
    }

    private static PriceTable failed(String why) {
        ConfigProblem problem = ConfigProblem.at("", null, why, Location.inFile(RESOURCE, 1, 1));
        return new PriceTable(null, null, null, "sluice", Map.of(), List.of(), List.of(problem), 0, problem);
    }

    /** Parses and checks the built-in table: with any problem it prices nothing. */
    static PriceTable parse(String text, String name, DocumentParser.Format format) {
        return PriceTable.parse(text, name, format, true);
    }
}
