package dev.sluice.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads LiteLLM's {@code model_prices_and_context_window.json}, the community's price table kept
 * current by many hands, into {@link PriceConfig} entries, on jackson's streaming parser. Its
 * root is an object of models, each an object of prices in USD <em>per token</em> and facts:
 *
 * <pre>
 * "gpt-5.4": {"litellm_provider": "openai", "mode": "chat",
 *     "input_cost_per_token": 2.5e-06, "cache_read_input_token_cost": 2.5e-07, "output_cost_per_token": 1.5e-05,
 *     "input_cost_per_token_above_272k_tokens": 5e-06, "output_cost_per_token_above_272k_tokens": 2.25e-05,
 *     "input_cost_per_token_priority": 5e-06, "output_cost_per_token_priority": 3e-05, ...}
 * </pre>
 *
 * What is read, per million tokens: {@code input_cost_per_token}, {@code output_cost_per_token},
 * {@code cache_read_input_token_cost}, {@code cache_creation_input_token_cost}, {@code
 * cache_creation_input_token_cost_above_1hr}; the lowest {@code ..._above_<N>k_tokens} tier that
 * gives both an input and an output price, as a {@link PriceConfig.LongContext}; the {@code _flex},
 * {@code _batches} and {@code _priority} prices, as service tier factors on the price (the larger
 * of the input and output ratios, so a budget never counts a tier too cheap).
 *
 * <p>Which models: those of the providers Sluice calls ({@code litellm_provider} openai,
 * text-completion-openai, anthropic, gemini, vertex_ai-*, azure, bedrock, bedrock_converse), of
 * mode chat, completion, responses or embedding, priced by the token. Their keys lose the
 * provider's own prefix ({@code gemini/gemini-2.5-pro} is {@code gemini-2.5-pro}); a key with a
 * deeper path (a region, {@code azure/eu/gpt-4o}; a route, {@code bedrock/us-east-1/...}) names a
 * surcharged variant and is skipped. OpenAI, Anthropic and Gemini API prices price a model for any
 * provider, as the built-in table's do; Azure's, Vertex AI's and Bedrock's only for a provider of
 * that kind ({@code azure-openai}, {@code vertex-ai}, {@code bedrock}). Everything else (images,
 * audio, rerankers, the {@code sample_spec} entry that documents the format) is skipped, not a
 * problem.
 *
 * <p>A value that is not what its field needs (a price that is text, negative or not finite; a
 * chat model with an input price and no output price) is a problem naming the entry and the field,
 * and leaves that entry out; the others are read as usual. A document that is not JSON, or whose
 * root is not an object, is unusable as a whole.
 */
final class LiteLlmPrices {

    /** How the prices of one LiteLLM provider are used: the Sluice provider they are for, the key prefixes they carry. */
    private static final class Provider {
        /** A provider kind's config name, or null for calls to any provider. */
        final String restriction;

        final List<String> prefixes;

        Provider(String restriction, String... prefixes) {
            this.restriction = restriction;
            this.prefixes = List.of(prefixes);
        }
    }

    private static final Map<String, Provider> PROVIDERS = providers();

    private static Map<String, Provider> providers() {
        Map<String, Provider> m = new HashMap<>();
        m.put("openai", new Provider(null, "openai/"));
        m.put("text-completion-openai", new Provider(null, "openai/"));
        m.put("anthropic", new Provider(null, "anthropic/"));
        m.put("gemini", new Provider(null, "gemini/"));
        m.put("vertex_ai-language-models", new Provider("vertex-ai", "vertex_ai/"));
        m.put("vertex_ai-anthropic_models", new Provider("vertex-ai", "vertex_ai/"));
        m.put("azure", new Provider("azure-openai", "azure/"));
        m.put("bedrock", new Provider("bedrock", "bedrock/"));
        m.put("bedrock_converse", new Provider("bedrock", "bedrock/"));
        return m;
    }

    private static final List<String> MODES = List.of("chat", "completion", "responses", "embedding");

    private static final String INPUT = "input_cost_per_token";
    private static final String OUTPUT = "output_cost_per_token";
    private static final String CACHE_READ = "cache_read_input_token_cost";
    private static final String CACHE_WRITE = "cache_creation_input_token_cost";
    private static final String CACHE_WRITE_1H = "cache_creation_input_token_cost_above_1hr";

    /** LiteLLM's suffix for a service tier's prices, and the tier's name in Sluice. */
    private static final String[][] TIERS = {{"_flex", "flex"}, {"_batches", "batch"}, {"_priority", "priority"}};

    /** The long-context prices: {@code input_cost_per_token_above_272k_tokens} and the like. */
    private static final Pattern ABOVE = Pattern.compile(
            "(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)"
                    + "_above_(\\d+)k_tokens");

    private LiteLlmPrices() {}

    /**
     * The table in {@code json}.
     *
     * @param name the file's name, for problems
     * @param asOf the date the file was last written: LiteLLM's table carries none
     */
    static PriceTable read(String json, String name, String asOf) {
        List<ConfigProblem> problems = new ArrayList<>();
        Map<String, PriceConfig> byName = new LinkedHashMap<>();
        Map<String, Boolean> bareKey = new HashMap<>();
        int skipped = 0;
        try (JsonParser p = new JsonFactory().createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return unusable(name, "its root is not an object of models", p.currentLocation(), asOf);
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String key = p.currentName();
                JsonLocation at = p.currentLocation();
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    problems.add(problem(name, key, null, "is not an object of prices; the entry is left out", at));
                    continue;
                }
                Map<String, Object> fields = fields(p);
                if (key.equals("sample_spec")) {
                    continue; // documents the format
                }
                Entry e = new Entry(name, key, fields, at, problems);
                PriceConfig price = e.price();
                if (price == null) {
                    skipped += e.problem ? 0 : 1;
                    continue;
                }
                String restrictedName = (price.provider() == null ? "" : price.provider())
                        + '\u0000'
                        + price.model().toLowerCase(Locale.ROOT);
                boolean bare = e.bare;
                Boolean keptBare = bareKey.get(restrictedName);
                if (keptBare == null || bare && !keptBare) {
                    byName.put(restrictedName, price); // the bare key wins over a prefixed one
                    bareKey.put(restrictedName, bare);
                }
            }
        } catch (JsonProcessingException e) {
            return unusable(name, "it is not JSON: " + e.getOriginalMessage(), e.getLocation(), asOf);
        } catch (IOException e) {
            return unusable(name, "cannot be read: " + e.getMessage(), null, asOf);
        }
        return new PriceTable(
                asOf, name, "USD", "litellm", Map.of(), new ArrayList<>(byName.values()), problems, skipped, null);
    }

    private static PriceTable unusable(String name, String why, JsonLocation at, String asOf) {
        ConfigProblem p = ConfigProblem.at("", null, why, location(name, at));
        return new PriceTable(asOf, name, "USD", "litellm", Map.of(), List.of(), List.of(p), 0, p);
    }

    /**
     * The members of the object the parser is at: numbers as {@link BigDecimal} from their text (a
     * price per token such as 2.5e-06 becomes exactly 2.5 per million), text, booleans, and
     * {@link #CONTAINER} for a nested value; null values are left out.
     */
    private static Map<String, Object> fields(JsonParser p) throws IOException {
        Map<String, Object> fields = new HashMap<>();
        for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (v) {
                case VALUE_NUMBER_INT:
                case VALUE_NUMBER_FLOAT:
                    fields.put(field, new BigDecimal(p.getText()));
                    break;
                case VALUE_STRING:
                    fields.put(field, p.getText());
                    break;
                case VALUE_TRUE:
                case VALUE_FALSE:
                    fields.put(field, v == JsonToken.VALUE_TRUE);
                    break;
                case VALUE_NULL:
                    break;
                default:
                    p.skipChildren();
                    fields.put(field, CONTAINER);
            }
        }
        return fields;
    }

    /** What {@link #fields} keeps for an object or array. */
    private static final Object CONTAINER = new Object() {
        @Override
        public String toString() {
            return "an object or array";
        }
    };

    /** One model of the file, turned into a price (or not, and why). */
    private static final class Entry {
        final String file;
        final String key;
        final Map<String, Object> fields;
        final JsonLocation at;
        final List<ConfigProblem> problems;
        /** The model was named by its key alone, without its provider's prefix. */
        boolean bare;
        /** A problem was reported: the entry is left out for that, not skipped. */
        boolean problem;

        Entry(String file, String key, Map<String, Object> fields, JsonLocation at, List<ConfigProblem> problems) {
            this.file = file;
            this.key = key;
            this.fields = fields;
            this.at = at;
            this.problems = problems;
        }

        /** The entry as a price; null when it is skipped or has a problem (then reported). */
        PriceConfig price() {
            Object providerName = fields.get("litellm_provider");
            Object mode = fields.get("mode");
            Provider provider = providerName instanceof String ? PROVIDERS.get(providerName) : null;
            if (provider == null || mode != null && !MODES.contains(mode)) {
                return null;
            }
            String model = modelName(provider);
            if (model == null || !fields.containsKey(INPUT)) {
                return null; // a surcharged route, or not priced by the token (images, audio, per request)
            }
            // every price read is checked before any is used: a bad one leaves the entry out
            for (String field : fields.keySet()) {
                if (isPriceRead(field) && perMillion(field) == null) {
                    return null;
                }
            }
            BigDecimal input = perMillion(INPUT);
            BigDecimal output = perMillion(OUTPUT);
            if (output == null) {
                if (!"embedding".equals(mode)) {
                    report(OUTPUT, null, "required but missing for a " + (mode == null ? "chat" : mode) + " model");
                    return null;
                }
                output = BigDecimal.ZERO;
            }
            PriceConfig.Builder b = PriceConfig.builder()
                    .model(model)
                    .provider(provider.restriction)
                    .input(input.doubleValue())
                    .output(output.doubleValue());
            BigDecimal cacheRead = perMillion(CACHE_READ);
            if (cacheRead != null) {
                b.cachedInput(cacheRead.doubleValue());
            }
            BigDecimal cacheWrite = perMillion(CACHE_WRITE);
            if (cacheWrite != null) {
                b.cacheWrite(cacheWrite.doubleValue());
            }
            BigDecimal cacheWrite1h = perMillion(CACHE_WRITE_1H);
            if (cacheWrite1h != null) {
                b.cacheWrite1h(cacheWrite1h.doubleValue());
            }
            PriceConfig.LongContext longContext = longContext();
            if (longContext != null) {
                b.longContext(longContext);
            }
            for (String[] tier : TIERS) {
                BigDecimal factor = factor(input, perMillion(INPUT + tier[0]), output, perMillion(OUTPUT + tier[0]));
                if (factor != null) {
                    b.serviceTier(tier[1], factor.doubleValue());
                }
            }
            return b.buildUnchecked();
        }

        /** The key without its provider's prefix; null for a key with a deeper path. */
        private String modelName(Provider provider) {
            String name = key;
            for (String prefix : provider.prefixes) {
                if (name.startsWith(prefix)) {
                    name = name.substring(prefix.length());
                    break;
                }
            }
            bare = name.equals(key);
            return name.isEmpty() || name.indexOf('/') >= 0 ? null : name;
        }

        /** The lowest threshold with both an input and an output price above it. */
        private PriceConfig.LongContext longContext() {
            long lowest = Long.MAX_VALUE;
            for (String field : fields.keySet()) {
                if (!field.startsWith(INPUT) || !isAbove(field)) {
                    continue;
                }
                Matcher m = ABOVE.matcher(field);
                if (m.matches() && m.group(1).equals(INPUT)) {
                    long thousands = Long.parseLong(m.group(2));
                    if (thousands < lowest && fields.containsKey(OUTPUT + "_above_" + thousands + "k_tokens")) {
                        lowest = thousands;
                    }
                }
            }
            if (lowest == Long.MAX_VALUE) {
                return null;
            }
            String above = "_above_" + lowest + "k_tokens";
            PriceConfig.LongContext.Builder b = PriceConfig.LongContext.builder()
                    .above(lowest * 1000)
                    .input(perMillion(INPUT + above).doubleValue())
                    .output(perMillion(OUTPUT + above).doubleValue());
            BigDecimal cacheRead = perMillion(CACHE_READ + above);
            if (cacheRead != null) {
                b.cachedInput(cacheRead.doubleValue());
            }
            BigDecimal cacheWrite = perMillion(CACHE_WRITE + above);
            if (cacheWrite != null) {
                b.cacheWrite(cacheWrite.doubleValue());
            }
            return b.build();
        }

        /** Whether this reader uses the field, so a bad value in it leaves the entry out. */
        private boolean isPriceRead(String field) {
            if (field.equals(INPUT)
                    || field.equals(OUTPUT)
                    || field.equals(CACHE_READ)
                    || field.equals(CACHE_WRITE)
                    || field.equals(CACHE_WRITE_1H)
                    || isAbove(field)) {
                return true;
            }
            for (String[] tier : TIERS) {
                if (field.equals(INPUT + tier[0]) || field.equals(OUTPUT + tier[0])) {
                    return true;
                }
            }
            return false;
        }

        /** The field's price per million tokens; null when absent, or bad (then reported). */
        private BigDecimal perMillion(String field) {
            Object v = fields.get(field);
            if (v == null) {
                return null;
            }
            if (!(v instanceof BigDecimal)) {
                report(field, v, "is not a number (a price in USD per token)");
                return null;
            }
            BigDecimal perToken = (BigDecimal) v;
            BigDecimal perMillion = perToken.movePointRight(6); // exact, no division
            double d = perMillion.doubleValue();
            if (perToken.signum() < 0 || !Double.isFinite(d)) {
                report(field, v, "is not allowed, must be a price >= 0 in USD per token");
                return null;
            }
            return perMillion;
        }

        private void report(String field, Object value, String what) {
            if (!problem) { // one problem per entry: the first says why it is left out
                problem = true;
                String rendered =
                        value == null ? null : value instanceof String ? "\"" + value + "\"" : value.toString();
                problems.add(problem(
                        file,
                        key,
                        field,
                        (rendered == null ? "" : rendered + " ") + what + "; the entry is left out",
                        at));
            }
        }
    }

    /** A long-context price: checked by name before the pattern, which most fields are not. */
    private static boolean isAbove(String field) {
        return field.endsWith("k_tokens")
                && field.contains("_above_")
                && ABOVE.matcher(field).matches();
    }

    /**
     * The factor a tier's prices are of the standard ones: the larger of the input and the output
     * ratio (a budget had better count a tier too dear than too cheap); null when the tier has no price.
     */
    private static BigDecimal factor(BigDecimal input, BigDecimal tierInput, BigDecimal output, BigDecimal tierOutput) {
        BigDecimal factor = null;
        if (tierInput != null && input.signum() > 0) {
            factor = tierInput.divide(input, MathContext.DECIMAL64);
        }
        if (tierOutput != null && output.signum() > 0) {
            BigDecimal f = tierOutput.divide(output, MathContext.DECIMAL64);
            factor = factor == null ? f : factor.max(f);
        }
        return factor == null ? null : factor.stripTrailingZeros();
    }

    private static ConfigProblem problem(String file, String key, String field, String message, JsonLocation at) {
        String path = "\"" + key + "\"" + (field == null ? "" : "." + field);
        return ConfigProblem.at(path, null, message, location(file, at));
    }

    private static Location location(String file, JsonLocation at) {
        return at == null ? Location.inFile(file, 1, 1) : Location.inFile(file, at.getLineNr(), at.getColumnNr());
    }
}
