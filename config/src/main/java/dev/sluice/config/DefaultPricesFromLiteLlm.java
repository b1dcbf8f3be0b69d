package dev.sluice.config;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refreshes the built-in price table ({@code config/src/main/prices/default-prices.yaml}) from a
 * copy of LiteLLM's {@code model_prices_and_context_window.json}: each model the table ships that
 * LiteLLM prices for any provider (its OpenAI, Anthropic and Gemini API entries) gets LiteLLM's
 * figures; a figure LiteLLM does not give (a price derived from a provider's rule, such as a
 * one-hour cache write) stays as written, and so do models LiteLLM does not price, the comments
 * and the order. The table's {@code asOf} becomes the date given and its {@code source} says
 * LiteLLM was read. The result is checked as the build checks the table, and written only if it
 * has no problem; what changed is printed, for a person to check against the providers' pages.
 *
 * <pre>
 * mvn -B -q -pl config -am compile exec:java -Dexec.mainClass=dev.sluice.config.DefaultPricesFromLiteLlm \
 *     -Dexec.args="/tmp/model_prices_and_context_window.json $PWD/config/src/main/prices/default-prices.yaml 2027-01-15"
 * </pre>
 */
public final class DefaultPricesFromLiteLlm {

    /** An entry of the table, one line: {@code   - {model: gpt-4o, ...}}. */
    private static final Pattern ENTRY = Pattern.compile("^(\\s*- )\\{model: ([^,}]+)(.*)}\\s*$");

    private static final Pattern AS_OF = Pattern.compile("^asOf: .*$");
    private static final Pattern SOURCE = Pattern.compile("^source: \"(.*)\"\\s*$");
    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d\\d-\\d\\d");

    private DefaultPricesFromLiteLlm() {}

    /** {@code args}: the LiteLLM file, the table to refresh in place, the date its prices are as of. */
    public static void main(String[] args) throws IOException {
        if (args.length != 3 || !DATE.matcher(args[2]).matches()) {
            throw new IllegalArgumentException(
                    "usage: DefaultPricesFromLiteLlm <model_prices_and_context_window.json> <default-prices.yaml>"
                            + " <yyyy-mm-dd>");
        }
        Path table = Paths.get(args[1]);
        String yaml = new String(Files.readAllBytes(table), StandardCharsets.UTF_8);
        Refreshed r = refresh(yaml, PriceTable.read(Paths.get(args[0])), args[2]);
        Files.write(table, r.yaml.getBytes(StandardCharsets.UTF_8));
        System.out.println(r.report());
    }

    /** The table after a refresh, and what changed. */
    static final class Refreshed {
        final String yaml;
        final List<String> changed;
        final List<String> notInLiteLlm;

        Refreshed(String yaml, List<String> changed, List<String> notInLiteLlm) {
            this.yaml = yaml;
            this.changed = changed;
            this.notInLiteLlm = notInLiteLlm;
        }

        String report() {
            StringBuilder b = new StringBuilder();
            b.append(changed.size()).append(" entries changed");
            for (String c : changed) {
                b.append("\n  ").append(c);
            }
            b.append("\n").append(notInLiteLlm.size()).append(" not priced by LiteLLM, kept as they were: ");
            b.append(String.join(", ", notInLiteLlm));
            return b.toString();
        }
    }

    /**
     * The table {@code yaml} with LiteLLM's prices.
     *
     * @throws IllegalStateException when the result would not pass the build's checks
     */
    static Refreshed refresh(String yaml, PriceTable litellm, String asOf) {
        Map<String, PriceConfig> shipped = new HashMap<>();
        PriceTable current = DefaultPrices.parse(yaml, "default-prices.yaml", DocumentParser.Format.YAML);
        if (!current.problems().isEmpty()) {
            throw new IllegalStateException("the table to refresh has problems: " + current.problems());
        }
        for (PriceConfig p : current.entries()) {
            shipped.put(p.model().toLowerCase(Locale.ROOT), p);
        }
        Map<String, PriceConfig> offered = new HashMap<>();
        for (PriceConfig p : litellm.entries()) {
            if (p.provider() == null) {
                offered.put(p.model().toLowerCase(Locale.ROOT), p);
            }
        }
        List<String> changed = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        for (String line : yaml.split("\n", -1)) {
            Matcher entry = ENTRY.matcher(line);
            Matcher source = SOURCE.matcher(line);
            if (entry.matches()) {
                String model = entry.group(2).trim();
                PriceConfig was = shipped.get(model.toLowerCase(Locale.ROOT));
                PriceConfig fresh = offered.get(model.toLowerCase(Locale.ROOT));
                if (fresh == null) {
                    missing.add(model);
                } else {
                    PriceConfig merged = merge(was, fresh, current.serviceTiers());
                    if (!merged.equals(was)) {
                        changed.add(model + ": " + flow(was) + " -> " + flow(merged));
                        line = entry.group(1) + flow(merged);
                    }
                }
            } else if (AS_OF.matcher(line).matches()) {
                line = "asOf: \"" + asOf + "\"";
            } else if (source.matches() && !source.group(1).contains("refreshed from LiteLLM")) {
                line = "source: \"" + source.group(1)
                        + "; refreshed from LiteLLM's model_prices_and_context_window.json\"";
            }
            out.append(line).append('\n');
        }
        String refreshed = out.substring(0, out.length() - 1);
        PriceTable checked = DefaultPrices.parse(refreshed, "default-prices.yaml", DocumentParser.Format.YAML);
        if (!checked.problems().isEmpty()) {
            throw new IllegalStateException("the refreshed table has problems, nothing written: " + checked.problems());
        }
        return new Refreshed(refreshed, changed, missing);
    }

    /**
     * LiteLLM's figures where it gives them, the shipped entry's elsewhere; its aliases kept, and
     * LiteLLM's service tier factors where they differ from the table's own.
     */
    private static PriceConfig merge(PriceConfig was, PriceConfig fresh, Map<String, Double> tableTiers) {
        PriceConfig.Builder b = was.toBuilder().input(fresh.input()).output(fresh.output());
        if (fresh.cachedInput() != fresh.input()) {
            b.cachedInput(fresh.cachedInput());
        }
        if (fresh.cacheWrite() != fresh.input()) {
            b.cacheWrite(fresh.cacheWrite());
        }
        if (fresh.cacheWrite1h() != fresh.cacheWrite()) {
            b.cacheWrite1h(fresh.cacheWrite1h());
        }
        if (fresh.longContext() != null) {
            b.longContext(merge(was.longContext(), fresh.longContext()));
        }
        for (Map.Entry<String, Double> t : fresh.serviceTiers().entrySet()) {
            if (!t.getValue().equals(tableTiers.get(t.getKey()))) {
                b.serviceTier(t.getKey(), t.getValue());
            }
        }
        return b.buildUnchecked();
    }

    /** LiteLLM's long-context tier, with the shipped tier's cache prices where LiteLLM gives none at that threshold. */
    private static PriceConfig.LongContext merge(PriceConfig.LongContext was, PriceConfig.LongContext fresh) {
        boolean same = was != null && was.above() == fresh.above();
        PriceConfig.LongContext.Builder b = PriceConfig.LongContext.builder()
                .above(fresh.above())
                .input(fresh.input())
                .output(fresh.output());
        Double cachedInput = fresh.cachedInput() != null ? fresh.cachedInput() : same ? was.cachedInput() : null;
        if (cachedInput != null) {
            b.cachedInput(cachedInput);
        }
        Double cacheWrite = fresh.cacheWrite() != null ? fresh.cacheWrite() : same ? was.cacheWrite() : null;
        if (cacheWrite != null) {
            b.cacheWrite(cacheWrite);
        }
        Double cacheWrite1h = fresh.cacheWrite1h() != null ? fresh.cacheWrite1h() : same ? was.cacheWrite1h() : null;
        if (cacheWrite1h != null) {
            b.cacheWrite1h(cacheWrite1h);
        }
        return b.build();
    }

    /** An entry as one line of the table, in its key order. */
    static String flow(PriceConfig p) {
        PriceConfig defaults = PriceConfig.of(p.model(), p.input(), p.output());
        StringBuilder b = new StringBuilder("{model: ").append(p.model());
        if (!p.aliases().isEmpty()) {
            b.append(", aliases: [").append(String.join(", ", p.aliases())).append(']');
        }
        b.append(", input: ").append(money(p.input()));
        if (p.cachedInput() != defaults.cachedInput()) {
            b.append(", cachedInput: ").append(money(p.cachedInput()));
        }
        if (p.cacheWrite() != defaults.cacheWrite()) {
            b.append(", cacheWrite: ").append(money(p.cacheWrite()));
        }
        if (p.cacheWrite1h() != p.cacheWrite()) {
            b.append(", cacheWrite1h: ").append(money(p.cacheWrite1h()));
        }
        b.append(", output: ").append(money(p.output()));
        PriceConfig.LongContext l = p.longContext();
        if (l != null) {
            b.append(", longContext: {above: ")
                    .append(l.above())
                    .append(", input: ")
                    .append(money(l.input()));
            if (l.cachedInput() != null) {
                b.append(", cachedInput: ").append(money(l.cachedInput()));
            }
            if (l.cacheWrite() != null) {
                b.append(", cacheWrite: ").append(money(l.cacheWrite()));
            }
            if (l.cacheWrite1h() != null) {
                b.append(", cacheWrite1h: ").append(money(l.cacheWrite1h()));
            }
            b.append(", output: ").append(money(l.output())).append('}');
        }
        if (!p.serviceTiers().isEmpty()) {
            b.append(", serviceTiers: {");
            String separator = "";
            for (Map.Entry<String, Double> t : p.serviceTiers().entrySet()) {
                b.append(separator).append(t.getKey()).append(": ").append(Issues.number(t.getValue()));
                separator = ", ";
            }
            b.append('}');
        }
        return b.append('}').toString();
    }

    /** A price as the table writes it: two decimals at least ({@code 2.50}, {@code 0.075}, {@code 15.00}). */
    private static String money(double price) {
        BigDecimal d = new BigDecimal(Issues.number(price));
        return (d.scale() < 2 ? d.setScale(2) : d).toPlainString();
    }
}
