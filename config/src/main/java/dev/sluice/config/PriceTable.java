package dev.sluice.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A table of prices read from a document: Sluice's own format (the built-in table's: {@code asOf},
 * {@code source}, {@code currency}, {@code serviceTiers}, {@code prices:} entries as in a config),
 * in YAML or JSON, or LiteLLM's {@code model_prices_and_context_window.json} ({@link
 * LiteLlmPrices}). The built-in table is one ({@link PriceConfig#defaults()}), and so is the file a
 * config names in {@code pricesFile}. Immutable.
 *
 * <p>Each entry stands alone: an entry with a problem (a price that is not a number, a negative
 * one, a missing output price) is left out and its problem kept ({@link #problems()}), naming the
 * entry and the field, and the table's other entries price as usual. Only the built-in table is
 * stricter: the build refuses it with any problem.
 */
public final class PriceTable {

    /** The keys of a table in Sluice's own format. */
    static final List<String> KEYS = List.of("asOf", "source", "currency", "serviceTiers", "prices");

    private final String asOf;
    private final String source;
    private final String currency;
    private final String format;
    private final Map<String, Double> serviceTiers;
    private final List<PriceConfig> entries;
    private final List<ConfigProblem> problems;
    private final int skipped;
    /** What makes the whole table unusable, or null. */
    private final ConfigProblem unusable;

    PriceTable(
            String asOf,
            String source,
            String currency,
            String format,
            Map<String, Double> serviceTiers,
            List<PriceConfig> entries,
            List<ConfigProblem> problems,
            int skipped,
            ConfigProblem unusable) {
        this.asOf = asOf;
        this.source = source;
        this.currency = currency;
        this.format = format;
        this.serviceTiers = Collections.unmodifiableMap(new LinkedHashMap<>(serviceTiers));
        this.entries = List.copyOf(entries);
        this.problems = List.copyOf(problems);
        this.skipped = skipped;
        this.unusable = unusable;
    }

    /**
     * Why the file named cannot be read ({@code cannot read /x: no such file}), or null when it can,
     * or when the name is empty (no file). Only looks: a config checks its {@code pricesFile} so
     * at load, and reads it later.
     */
    public static String unreadable(String path) {
        if (path == null || path.trim().isEmpty()) {
            return null;
        }
        try {
            Path file = java.nio.file.Paths.get(path.trim());
            if (!Files.exists(file)) {
                return "cannot read " + path + ": no such file";
            }
            if (Files.isDirectory(file)) {
                return "cannot read " + path + ": it is a directory";
            }
            return Files.isReadable(file) ? null : "cannot read " + path + ": permission denied";
        } catch (java.nio.file.InvalidPathException | SecurityException e) {
            return "cannot read " + path + ": " + e.getMessage();
        }
    }

    /**
     * Reads a price table file: LiteLLM's JSON, or Sluice's own format in YAML ({@code .yaml},
     * {@code .yml}) or JSON (a document whose first key is one of the table's: {@code asOf},
     * {@code source}, {@code currency}, {@code serviceTiers}, {@code prices}).
     *
     * @throws IOException naming the file and why, when it cannot be read, is not UTF-8, is not a
     *     document of either format, or its heading ({@code asOf}, {@code source}, {@code
     *     currency}) is missing: then nothing of it can be trusted
     */
    public static PriceTable read(Path file) throws IOException {
        String text;
        try {
            if (Files.isDirectory(file)) {
                throw new IOException("cannot read " + file + ": it is a directory");
            }
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (NoSuchFileException e) {
            throw new IOException("cannot read " + file + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new IOException("cannot read " + file + ": permission denied", e);
        } catch (CharacterCodingException e) {
            throw new IOException("cannot read " + file + ": it is not UTF-8 text", e);
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String name = file.toString();
        String lower = name.toLowerCase(Locale.ROOT);
        PriceTable table;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            table = parse(text, name, DocumentParser.Format.YAML, false);
        } else if (isSluiceFormat(text)) {
            table = parse(text, name, DocumentParser.Format.JSON, false);
        } else {
            table = LiteLlmPrices.read(text, name, modified(file));
        }
        ConfigProblem whole = table.unusable();
        if (whole != null) {
            throw new IOException(name + " is not a usable price table: " + whole);
        }
        return table;
    }

    /** The day the file was last written, as a table's {@code asOf} when it states none. */
    private static String modified(Path file) {
        try {
            return Files.getLastModifiedTime(file)
                    .toInstant()
                    .atOffset(ZoneOffset.UTC)
                    .toLocalDate()
                    .toString();
        } catch (IOException | RuntimeException e) {
            return Instant.EPOCH.atOffset(ZoneOffset.UTC).toLocalDate().toString();
        }
    }

    /**
     * A JSON document in Sluice's own format, not LiteLLM's: its first key is one of the table's
     * ({@code asOf}, {@code prices}...), where LiteLLM's is a model or its {@code sample_spec}.
     * Only the first key is read: the file may be megabytes.
     */
    private static boolean isSluiceFormat(String json) {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            return p.nextToken() == JsonToken.START_OBJECT
                    && p.nextToken() == JsonToken.FIELD_NAME
                    && KEYS.contains(p.currentName());
        } catch (IOException | RuntimeException e) {
            return false; // LiteLLM's reader says what is wrong with it
        }
    }

    /**
     * Parses and checks a table in Sluice's own format with the parser, binder and checks a config
     * file gets.
     *
     * @param strict the built-in table: any problem leaves it with no entries at all; otherwise only
     *     the entries with a problem are left out
     */
    static PriceTable parse(String text, String name, DocumentParser.Format format, boolean strict) {
        List<ConfigProblem> problems = new ArrayList<>();
        Node.MapNode root = DocumentParser.parse(text, format, name, problems);
        boolean unreadable = !problems.isEmpty();
        ConfigBinder binder = new ConfigBinder();
        PriceTable table = binder.bindPriceTable(root);
        problems.addAll(binder.problems());
        Issues issues = new Issues();
        if (!unreadable) {
            required(table.asOf, "asOf", issues);
            required(table.source, "source", issues);
            required(table.currency, "currency", issues);
        }
        PriceConfig.checkServiceTiers(table.serviceTiers, "serviceTiers", issues);
        for (int i = 0; i < table.entries.size(); i++) {
            table.entries.get(i).validate(Issues.index("", "prices", i), issues);
        }
        PriceConfig.checkNames(table.entries, "prices", issues);
        for (Issues.Issue issue : issues.list()) {
            if (!binder.covers(issue.path)) {
                problems.add(ConfigProblem.at(issue.path, issue.value, issue.message, binder.locate(issue.path)));
            }
        }
        Set<Integer> bad = new HashSet<>();
        ConfigProblem unusable = null;
        for (ConfigProblem p : problems) {
            int entry = entryOf(p.path());
            if (entry >= 0) {
                bad.add(entry);
            } else if (unusable == null) {
                unusable = p;
            }
        }
        List<PriceConfig> kept = new ArrayList<>();
        if (strict ? problems.isEmpty() : unusable == null) {
            for (int i = 0; i < table.entries.size(); i++) {
                if (!bad.contains(i)) {
                    kept.add(table.entries.get(i));
                }
            }
        }
        return new PriceTable(
                table.asOf, table.source, table.currency, "sluice", table.serviceTiers, kept, problems, 0, unusable);
    }

    /**
     * The first problem with the table as a whole (not readable, not a table, its heading missing
     * or wrong), which leaves none of its entries usable; null when every problem is an entry's.
     */
    ConfigProblem unusable() {
        return unusable;
    }

    /** The index of the entry a problem's path is in ({@code prices[3].output} is 3), or -1. */
    private static int entryOf(String path) {
        if (!path.startsWith("prices[")) {
            return -1;
        }
        int close = path.indexOf(']');
        try {
            return close < 0 ? -1 : Integer.parseInt(path.substring(7, close));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void required(String value, String path, Issues issues) {
        if (value == null || value.trim().isEmpty()) {
            issues.missing(path);
        }
    }

    /** The date its prices were checked (Sluice's format) or the file was last written (LiteLLM's). */
    public String asOf() {
        return asOf;
    }

    /** Where its prices come from: the table's {@code source}, or the file read. */
    public String source() {
        return source;
    }

    /** The currency of its prices: LiteLLM's are USD. */
    public String currency() {
        return currency;
    }

    /** {@code sluice} or {@code litellm}: the format it was read from. */
    public String format() {
        return format;
    }

    /** The table's own service tier factors, for its entries that set none; empty when it states none. */
    public Map<String, Double> serviceTiers() {
        return serviceTiers;
    }

    /** The entries that price something; those with a problem are left out. */
    public List<PriceConfig> entries() {
        return entries;
    }

    /** What was wrong with the entries left out, each naming the entry and the field. */
    public List<ConfigProblem> problems() {
        return problems;
    }

    /**
     * Entries of a LiteLLM table Sluice has no use for: not priced by the token (images, audio,
     * per-request prices), not a chat, completion, responses or embedding model, or for a provider
     * Sluice does not call. Not problems.
     */
    public int skipped() {
        return skipped;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PriceTable)) {
            return false;
        }
        PriceTable t = (PriceTable) o;
        return Objects.equals(asOf, t.asOf)
                && Objects.equals(source, t.source)
                && Objects.equals(currency, t.currency)
                && Objects.equals(format, t.format)
                && serviceTiers.equals(t.serviceTiers)
                && entries.equals(t.entries);
    }

    @Override
    public int hashCode() {
        return Objects.hash(asOf, source, currency, format, serviceTiers, entries);
    }

    @Override
    public String toString() {
        return "PriceTable{" + source + ", " + format + ", as of " + asOf + ", " + currency + ", " + entries.size()
                + " entries" + (problems.isEmpty() ? "" : ", " + problems.size() + " left out")
                + (skipped == 0 ? "" : ", " + skipped + " skipped") + "}";
    }
}
