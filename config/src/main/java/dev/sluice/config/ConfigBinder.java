package dev.sluice.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binds a {@link Node} tree to the model's builders. It checks what only the document can
 * tell (unknown keys, wrong types, quoted numbers, enum spellings) and records the location
 * of every path; ranges and rules between sections are the model's own validation, which the
 * loader runs afterwards. Whatever cannot be read is reported and left unset, so binding goes
 * on and every problem is found in one pass.
 */
final class ConfigBinder {
    private static final List<String> RULE_KINDS;

    static {
        List<String> kinds = new ArrayList<>();
        for (IdentityRule.Kind k : IdentityRule.Kind.values()) {
            kinds.add(k.configName());
        }
        RULE_KINDS = Collections.unmodifiableList(kinds);
    }

    private static final Pattern COUNT = Pattern.compile("(\\d[\\d_]*)(\\.\\d+)?([kKmMgG])");
    private static final Pattern TIME_OF_DAY = Pattern.compile("([01]?\\d|2[0-3]):([0-5]\\d)");

    /** Where a limit is declared decides which keys it may have. */
    private enum LimitPlace {
        PROVIDER,
        TOP_LEVEL,
        TENANT
    }

    private final List<ConfigProblem> problems = new ArrayList<>();
    private final Map<String, Location> locations = new HashMap<>();

    List<ConfigProblem> problems() {
        return problems;
    }

    /** The location of the nearest path (or enclosing path) that has one; null if none. */
    Location locate(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Location l = locations.get(p);
            if (l != null) {
                return l;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
        return null;
    }

    /** True when binding already reported a problem at this path or one enclosing it: the model would only repeat it. */
    boolean covers(String path) {
        for (ConfigProblem p : problems) {
            String q = p.path();
            if (!q.isEmpty() && (path.equals(q) || path.startsWith(q + ".") || path.startsWith(q + "["))) {
                return true;
            }
        }
        return false;
    }

    SluiceConfig.Builder bind(Node.MapNode root) {
        record(root, "");
        SluiceConfig.Builder b = SluiceConfig.builder();
        Fields r = new Fields(root, "", ConfigSchema.ROOT.keys(), Collections.emptyMap());
        // In the schema's order, which is the order problems found in overrides are reported in.
        for (ConfigSchema.Entry e : ConfigSchema.ROOT.entries()) {
            Setting<SluiceConfig.Builder, SluiceConfig.Builder, ?> setting = ConfigSchema.ROOT.settingOf(e);
            if (setting != null) {
                bindSetting(setting, r, b);
            } else if (e instanceof Section) {
                bindSection((Section<?, ?>) e, r, b);
            } else {
                bindStructure((ConfigSchema.Structure) e, r, b);
            }
        }
        return b;
    }

    private static <B, T> void bindSetting(Setting<?, B, T> setting, Setting.Reader in, B builder) {
        T value = setting.read(in);
        if (value != null) {
            setting.set(builder, value);
        }
    }

    private <C, B> void bindSection(Section<C, B> section, Fields parent, SluiceConfig.Builder root) {
        Fields f = parent.section(section.key, section.keys());
        if (f == null) {
            return;
        }
        B b = section.newBuilder();
        for (Setting<C, B, ?> s : section.settings()) {
            bindSetting(s, f, b);
        }
        section.attach(root, section.buildUnchecked(b));
    }

    private void bindStructure(ConfigSchema.Structure structure, Fields r, SluiceConfig.Builder b) {
        switch (structure.key) {
            case "providers": {
                List<Node> providers = r.list("providers");
                if (providers != null) {
                    List<ProviderConfig> list = new ArrayList<>();
                    for (int i = 0; i < providers.size(); i++) {
                        list.add(bindProvider(providers.get(i), Issues.index("", "providers", i)));
                    }
                    b.providers(list);
                }
                break;
            }
            case "limits": {
                List<Node> limits = r.list("limits");
                if (limits != null) {
                    b.limits(bindLimits(limits, "limits", LimitPlace.TOP_LEVEL));
                }
                break;
            }
            case "identity": {
                Fields identity = r.section("identity", structure.keys);
                if (identity != null) {
                    b.identity(bindIdentity(identity));
                }
                break;
            }
            case "tenants": {
                List<Node> tenants = r.list("tenants");
                if (tenants != null) {
                    List<TenantConfig> list = new ArrayList<>();
                    for (int i = 0; i < tenants.size(); i++) {
                        list.add(bindTenant(tenants.get(i), Issues.index("", "tenants", i)));
                    }
                    b.tenants(list);
                }
                break;
            }
            case "trafficClasses": {
                List<Node> classes = r.list("trafficClasses");
                if (classes != null) {
                    List<TrafficClassConfig> list = new ArrayList<>();
                    for (int i = 0; i < classes.size(); i++) {
                        list.add(bindClass(classes.get(i), Issues.index("", "trafficClasses", i)));
                    }
                    b.trafficClasses(list);
                }
                break;
            }
            case "fallbacks": {
                List<Node> fallbacks = r.list("fallbacks");
                if (fallbacks != null) {
                    List<FallbackConfig> list = new ArrayList<>();
                    for (int i = 0; i < fallbacks.size(); i++) {
                        list.add(bindFallback(fallbacks.get(i), Issues.index("", "fallbacks", i)));
                    }
                    b.fallbacks(list);
                }
                break;
            }
            case "prices": {
                List<Node> prices = r.list("prices");
                if (prices != null) {
                    b.prices(bindPrices(prices, "prices"));
                }
                break;
            }
            default:
                throw new IllegalStateException("no binding for " + structure.key);
        }
    }

    private static <T> void set(T value, java.util.function.Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    private ProviderConfig bindProvider(Node node, String path) {
        ProviderConfig.Builder b = ProviderConfig.builder();
        Fields f = item(node, path, ConfigSchema.PROVIDERS.keys, Collections.emptyMap(), "provider");
        if (f == null) {
            return b.buildUnchecked();
        }
        set(f.text("name"), b::name);
        set(f.choice("kind", ProviderKind.values()), b::kind);
        Fields match = f.section("match", ConfigSchema.MATCH_KEYS);
        if (match != null) {
            List<String> hosts = match.strings("hosts");
            List<String> urls = match.strings("urls");
            b.match(MatchConfig.unchecked(hosts == null ? List.of() : hosts, urls == null ? List.of() : urls));
        }
        set(f.textMap("scope"), b::scope);
        set(f.bool("learnFromHeaders"), b::learnFromHeaders);
        List<Node> limits = f.list("limits");
        if (limits != null) {
            b.limits(bindLimits(limits, Issues.join(path, "limits"), LimitPlace.PROVIDER));
        }
        set(f.textMap("options"), b::options);
        Fields ramp = f.section("ramp", ConfigSchema.RAMP_KEYS);
        if (ramp != null) {
            b.ramp(bindRamp(ramp));
        }
        return b.buildUnchecked();
    }

    private RampConfig bindRamp(Fields f) {
        RampConfig.Builder b = RampConfig.builder();
        set(f.bool("enabled"), b::enabled);
        set(f.number("growth"), b::growth);
        set(f.duration("interval"), b::interval);
        set(f.number("floor"), b::floor);
        set(f.number("startShare"), b::startShare);
        set(f.duration("over"), b::over);
        set(f.number("rejectedShare"), b::rejectedShare);
        set(f.duration("queueWaitP95"), b::queueWaitP95);
        set(f.duration("latencyP95"), b::latencyP95);
        set(f.choice("onTrip", RampAction.values()), b::onTrip);
        return b.buildUnchecked();
    }

    private List<LimitConfig> bindLimits(List<Node> nodes, String path, LimitPlace place) {
        List<LimitConfig> list = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            list.add(bindLimit(nodes.get(i), path + "[" + i + "]", place));
        }
        return list;
    }

    private LimitConfig bindLimit(Node node, String path, LimitPlace place) {
        LimitConfig.Builder b = LimitConfig.builder();
        Map<String, String> forbidden = new HashMap<>();
        if (place == LimitPlace.PROVIDER) {
            forbidden.put("provider", "a provider's own limits always count that provider's calls");
            forbidden.put("shared", "a provider's own limits are always shared");
        } else if (place == LimitPlace.TENANT) {
            forbidden.put("level", "a tenant's limits are at level tenant, for that tenant");
        }
        Fields f = item(node, path, ConfigSchema.LIMITS.keys, forbidden, "limit");
        if (f == null) {
            return b.buildUnchecked();
        }
        set(f.text("id"), b::id);
        set(f.choice("dimension", Dimension.values()), b::dimension);
        set(f.capacity("capacity"), b::capacity);
        set(f.number("amount"), b::amount);
        set(f.duration("window"), b::window);
        set(f.choice("period", CalendarPeriod.values()), b::period);
        set(f.number("warnAt"), b::warnAt);
        Algorithm algorithm = f.choice("algorithm", Algorithm.values());
        set(algorithm, b::algorithm);
        if (algorithm != null || !f.has("algorithm")) {
            // With a misspelt algorithm, "resetAt only with daily_reset" would blame the wrong line.
            set(f.timeOfDay("resetAt"), b::resetAt);
            set(f.zone("zone"), b::zone);
        }
        if (place != LimitPlace.TENANT) {
            set(f.choice("level", ScopeLevel.values()), b::level);
        }
        if (place != LimitPlace.PROVIDER) {
            set(f.text("provider"), b::provider);
            set(f.bool("shared"), b::shared);
        }
        set(f.strings("models"), b::models);
        set(f.bool("enforced"), b::enforced);
        bindBurst(f.node.get("burst"), f.p("burst"), b);
        return b.buildUnchecked();
    }

    /** A burst is a count ({@code 10}, {@code 2k}) or a duration of the rate ({@code 2s}, {@code 500ms}, {@code 1m}). */
    private void bindBurst(Node node, String path, LimitConfig.Builder b) {
        if (isAbsent(node)) {
            return;
        }
        if (node instanceof Node.ScalarNode && ((Node.ScalarNode) node).type == Node.ScalarNode.Type.STRING) {
            Node.ScalarNode s = (Node.ScalarNode) node;
            String t = s.text.trim();
            if (!COUNT.matcher(t).matches() || t.endsWith("m")) {
                if (t.matches("-?\\d[\\d_]*")) {
                    set(capacity(node, path), b::burst); // a number from -D or the environment
                    return;
                }
                try {
                    b.burst(Durations.parse(t));
                } catch (IllegalArgumentException e) {
                    problem(path, s, "\"" + s.text + "\" is not a count or a duration; write e.g. 10, 2k or 2s");
                }
                return;
            }
        }
        set(capacity(node, path), b::burst);
    }

    private IdentityConfig bindIdentity(Fields f) {
        IdentityConfig.Builder b = IdentityConfig.builder();
        set(rules(f, "tenant"), b::tenant);
        set(rules(f, "team"), b::team);
        set(rules(f, "trafficClass"), b::trafficClass);
        return b.buildUnchecked();
    }

    private List<IdentityRule> rules(Fields f, String key) {
        List<Node> nodes = f.list(key);
        if (nodes == null) {
            return null;
        }
        List<IdentityRule> rules = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            rules.add(bindRule(nodes.get(i), Issues.join(f.path, key) + "[" + i + "]"));
        }
        return rules;
    }

    private IdentityRule bindRule(Node node, String path) {
        IdentityRule damaged = IdentityRule.unchecked(null, null, null);
        if (!(node instanceof Node.MapNode)) {
            problem(path, node, "expected a rule such as {header: X-Tenant}, got " + node.describe());
            return damaged;
        }
        Node.MapNode map = (Node.MapNode) node;
        if (map.fields.size() != 1) {
            problem(
                    path,
                    null,
                    "a rule has exactly one key (" + String.join(", ", RULE_KINDS) + "), found "
                            + (map.fields.isEmpty() ? "none" : String.join(", ", map.fields.keySet())),
                    map.location);
            return damaged;
        }
        Node.Field field = map.fields.values().iterator().next();
        IdentityRule.Kind kind = IdentityRule.Kind.fromConfigName(field.key);
        String valuePath = Issues.join(path, field.key);
        if (kind == null) {
            problem(valuePath, null, unknownKey(field.key, RULE_KINDS, "rule kinds"), field.keyLocation);
            return damaged;
        }
        Node value = field.value;
        switch (kind) {
            case CALLING_PACKAGE: {
                Map<String, String> packages = textMap(value, valuePath);
                return packages == null ? damaged : IdentityRule.unchecked(kind, null, packages);
            }
            case API_KEY_ID: {
                Boolean on = bool(value, valuePath);
                if (on == null) {
                    return damaged;
                }
                if (!on) {
                    problem(valuePath, value, "must be true; remove the rule to stop using the API key id");
                    return damaged;
                }
                return IdentityRule.unchecked(kind, null, null);
            }
            default: {
                String text = text(value, valuePath);
                if (text == null) {
                    if (isAbsent(value)) {
                        problem(valuePath, null, "needs a value", field.keyLocation);
                    }
                    return damaged;
                }
                return IdentityRule.unchecked(kind, text, null);
            }
        }
    }

    private TenantConfig bindTenant(Node node, String path) {
        TenantConfig.Builder b = TenantConfig.builder();
        Fields f = item(node, path, ConfigSchema.TENANTS.keys, Collections.emptyMap(), "tenant");
        if (f == null) {
            return b.buildUnchecked();
        }
        set(f.text("name"), b::name);
        set(f.number("weight"), b::weight);
        set(f.number("guaranteedShare"), b::guaranteedShare);
        List<Node> limits = f.list("limits");
        if (limits != null) {
            b.limits(bindLimits(limits, Issues.join(path, "limits"), LimitPlace.TENANT));
        }
        return b.buildUnchecked();
    }

    private TrafficClassConfig bindClass(Node node, String path) {
        Fields f = item(node, path, ConfigSchema.TRAFFIC_CLASSES.keys, Collections.emptyMap(), "traffic class");
        if (f == null) {
            return TrafficClassConfig.builder().buildUnchecked();
        }
        String name = f.text("name");
        TrafficClassConfig builtIn = name == null ? null : TrafficClassConfig.builtIn(name);
        // A built-in named here is adjusted, not replaced: unset fields keep the built-in's values.
        TrafficClassConfig.Builder b = builtIn != null ? builtIn.toBuilder() : TrafficClassConfig.builder();
        set(name, b::name);
        set(f.integer("priority"), b::priority);
        set(f.duration("maxWait"), b::maxWait);
        set(f.integer("maxQueueDepth"), b::maxQueueDepth);
        set(f.choice("overloadAction", OverloadAction.values()), b::overloadAction);
        return b.buildUnchecked();
    }

    private FallbackConfig bindFallback(Node node, String path) {
        FallbackConfig.Builder b = FallbackConfig.builder();
        Fields f = item(node, path, ConfigSchema.FALLBACKS.keys, Collections.emptyMap(), "fallback");
        if (f == null) {
            return b.buildUnchecked();
        }
        set(f.text("from"), b::from);
        set(f.strings("classes"), b::classes);
        set(f.duration("afterPause"), b::afterPause);
        set(f.bool("otherModels"), b::otherModels);
        List<Node> routes = f.list("routes");
        if (routes != null) {
            List<FallbackConfig.Route> list = new ArrayList<>();
            for (int i = 0; i < routes.size(); i++) {
                list.add(bindFallbackRoute(routes.get(i), Issues.index(path, "routes", i)));
            }
            b.routes(list);
        }
        return b.buildUnchecked();
    }

    private FallbackConfig.Route bindFallbackRoute(Node node, String path) {
        FallbackConfig.RouteBuilder b = FallbackConfig.Route.builder();
        Fields f = item(node, path, ConfigSchema.FALLBACK_ROUTE_KEYS, Collections.emptyMap(), "route");
        if (f == null) {
            return b.buildUnchecked();
        }
        set(f.text("name"), b::name);
        set(f.text("to"), b::to);
        set(f.text("url"), b::url);
        set(f.text("deployment"), b::deployment);
        set(f.text("model"), b::model);
        set(f.text("apiKeyEnv"), b::apiKeyEnv);
        return b.buildUnchecked();
    }

    private List<PriceConfig> bindPrices(List<Node> nodes, String path) {
        List<PriceConfig> list = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            list.add(bindPrice(nodes.get(i), path + "[" + i + "]"));
        }
        return list;
    }

    private PriceConfig bindPrice(Node node, String path) {
        PriceConfig.Builder b = PriceConfig.builder();
        Fields f = item(node, path, ConfigSchema.PRICES.keys, Collections.emptyMap(), "price");
        if (f == null) {
            return b.buildUnchecked();
        }
        // Plain calls, not set(value, b::setter): the built-in price table is bound as the agent
        // starts, and each method reference is a class the JVM spins then (see Setting.Field).
        String model = f.text("model");
        if (model != null) {
            b.model(model);
        }
        String provider = f.text("provider");
        if (provider != null) {
            b.provider(provider);
        }
        Double input = f.number("input");
        if (input != null) {
            b.input(input);
        }
        Double cachedInput = f.number("cachedInput");
        if (cachedInput != null) {
            b.cachedInput(cachedInput);
        }
        Double cacheWrite = f.number("cacheWrite");
        if (cacheWrite != null) {
            b.cacheWrite(cacheWrite);
        }
        Double cacheWrite1h = f.number("cacheWrite1h");
        if (cacheWrite1h != null) {
            b.cacheWrite1h(cacheWrite1h);
        }
        Double output = f.number("output");
        if (output != null) {
            b.output(output);
        }
        Fields longContext = f.section("longContext", ConfigSchema.PRICE_LONG_CONTEXT_KEYS);
        if (longContext != null) {
            b.longContext(bindLongContext(longContext));
        }
        Map<String, Double> tiers = serviceTiers(f);
        if (tiers != null) {
            b.serviceTiers(tiers);
        }
        List<String> aliases = f.strings("aliases");
        if (aliases != null) {
            b.aliases(aliases);
        }
        return b.buildUnchecked();
    }

    private static PriceConfig.LongContext bindLongContext(Fields f) {
        PriceConfig.LongContext.Builder b = PriceConfig.LongContext.builder();
        Long above = f.capacity("above");
        if (above != null) {
            b.above(above);
        }
        Double input = f.number("input");
        if (input != null) {
            b.input(input);
        }
        Double cachedInput = f.number("cachedInput");
        if (cachedInput != null) {
            b.cachedInput(cachedInput);
        }
        Double cacheWrite = f.number("cacheWrite");
        if (cacheWrite != null) {
            b.cacheWrite(cacheWrite);
        }
        Double cacheWrite1h = f.number("cacheWrite1h");
        if (cacheWrite1h != null) {
            b.cacheWrite1h(cacheWrite1h);
        }
        Double output = f.number("output");
        if (output != null) {
            b.output(output);
        }
        return b.build();
    }

    /** A {@code serviceTiers} mapping of tier names to factors; unknown tier names are the model's to report. */
    private Map<String, Double> serviceTiers(Fields parent) {
        Node n = parent.node.get("serviceTiers");
        if (isAbsent(n)) {
            return null;
        }
        if (!(n instanceof Node.MapNode)) {
            problem(parent.p("serviceTiers"), n, "expected a mapping of service tiers to factors, got " + n.describe());
            return null;
        }
        Map<String, Double> tiers = new LinkedHashMap<>();
        String path = parent.p("serviceTiers");
        for (Node.Field field : ((Node.MapNode) n).fields.values()) {
            Double factor = number(field.value, Issues.join(path, field.key));
            if (factor != null) {
                tiers.put(field.key, factor);
            }
        }
        return tiers;
    }

    /**
     * The built-in price table ({@link DefaultPrices}): its heading and its {@code prices:},
     * bound by the same code as a config's own {@code prices:}.
     */
    PriceTable bindPriceTable(Node.MapNode root) {
        record(root, "");
        Fields f = new Fields(root, "", PriceTable.KEYS, Collections.emptyMap());
        String asOf = f.text("asOf");
        String source = f.text("source");
        String currency = f.text("currency");
        Map<String, Double> tiers = serviceTiers(f);
        List<Node> prices = f.list("prices");
        return new PriceTable(
                asOf,
                source,
                currency,
                "sluice",
                tiers == null ? Map.of() : tiers,
                prices == null ? List.of() : bindPrices(prices, "prices"),
                List.of(),
                0,
                null);
    }

    // ---- reading values -------------------------------------------------------------------

    /** A list item that must be a mapping; null (reported) when it is not. */
    private Fields item(Node node, String path, List<String> keys, Map<String, String> forbidden, String what) {
        if (node instanceof Node.MapNode) {
            return new Fields((Node.MapNode) node, path, keys, forbidden);
        }
        problem(path, node, "expected a mapping (one " + what + "), got " + node.describe());
        return null;
    }

    private void record(Node node, String path) {
        if (node instanceof Node.MapNode) {
            for (Node.Field f : ((Node.MapNode) node).fields.values()) {
                String p = Issues.join(path, f.key);
                locations.put(p, f.keyLocation);
                record(f.value, p);
            }
        } else if (node instanceof Node.ListNode) {
            List<Node> items = ((Node.ListNode) node).items;
            for (int i = 0; i < items.size(); i++) {
                String p = path + "[" + i + "]";
                locations.put(p, items.get(i).location);
                record(items.get(i), p);
            }
        }
    }

    private void problem(String path, Node node, String message) {
        problem(path, node, message, node == null ? locate(path) : node.location);
    }

    private void problem(String path, Node node, String message, Location location) {
        String value = node instanceof Node.ScalarNode ? scalarValue((Node.ScalarNode) node) : null;
        problems.add(ConfigProblem.at(path, value, message, location));
    }

    private static String scalarValue(Node.ScalarNode s) {
        return s.type == Node.ScalarNode.Type.STRING ? "\"" + s.text + "\"" : s.text;
    }

    private static boolean isAbsent(Node node) {
        return node == null || (node instanceof Node.ScalarNode && ((Node.ScalarNode) node).isNull());
    }

    private static String unknownKey(String key, List<String> allowed, String what) {
        String near = DidYouMean.nearest(key, allowed);
        return near != null
                ? "unknown key, did you mean " + near + "?"
                : "unknown key; " + what + " are " + String.join(", ", allowed);
    }

    private String text(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected a text value, got " + node.describe());
            return null;
        }
        return ((Node.ScalarNode) node).text;
    }

    private BigInteger whole(Node node, String path, String what) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected " + what + ", got " + node.describe());
            return null;
        }
        Node.ScalarNode s = (Node.ScalarNode) node;
        BigDecimal d = decimal(s, path, what);
        if (d == null) {
            return null;
        }
        try {
            BigInteger i = d.toBigIntegerExact();
            if (i.bitLength() > 63) {
                problem(path, node, s.text + " is too large");
                return null;
            }
            return i;
        } catch (ArithmeticException fraction) {
            problem(path, node, s.text + " is not a whole number");
            return null;
        }
    }

    /** A scalar's numeric value; null (reported) when it is not a number. */
    private BigDecimal decimal(Node.ScalarNode s, String path, String what) {
        switch (s.type) {
            case INTEGER:
            case DECIMAL: {
                BigDecimal d = s.decimalValue();
                if (d == null) {
                    problem(path, s, "expected " + what + ", got " + s.text);
                }
                return d;
            }
            case STRING:
                if (s.fromText) {
                    try {
                        return new BigDecimal(s.text.trim());
                    } catch (NumberFormatException e) {
                        problem(path, s, "expected " + what + ", got \"" + s.text + "\"");
                        return null;
                    }
                }
                if (s.looksNumeric()) {
                    problem(path, s, "\"" + s.text + "\" is quoted; write numbers without quotes");
                } else {
                    problem(path, s, "expected " + what + ", got \"" + s.text + "\"");
                }
                return null;
            default:
                problem(path, s, "expected " + what + ", got " + s.text);
                return null;
        }
    }

    private Integer integer(Node node, String path) {
        BigInteger i = whole(node, path, "a whole number");
        if (i == null) {
            return null;
        }
        if (i.bitLength() > 31) {
            problem(path, node, i + " is too large");
            return null;
        }
        return i.intValue();
    }

    private Double number(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected a number, got " + node.describe());
            return null;
        }
        BigDecimal d = decimal((Node.ScalarNode) node, path, "a number");
        return d == null ? null : d.doubleValue();
    }

    /** A count such as 200000, 200_000, 200k or 1.5M. */
    private Long capacity(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (node instanceof Node.ScalarNode && ((Node.ScalarNode) node).type == Node.ScalarNode.Type.STRING) {
            Node.ScalarNode s = (Node.ScalarNode) node;
            Matcher m = COUNT.matcher(s.text.trim());
            if (m.matches()) {
                BigDecimal amount =
                        new BigDecimal(m.group(1).replace("_", "") + (m.group(2) == null ? "" : m.group(2)));
                long unit;
                switch (m.group(3)) {
                    case "k":
                    case "K":
                        unit = 1_000L;
                        break;
                    case "m":
                    case "M":
                        unit = 1_000_000L;
                        break;
                    default:
                        unit = 1_000_000_000L;
                        break;
                }
                try {
                    return amount.multiply(BigDecimal.valueOf(unit)).longValueExact();
                } catch (ArithmeticException e) {
                    problem(path, s, "\"" + s.text + "\" is not a whole number");
                    return null;
                }
            }
            if (!s.fromText && !s.looksNumeric()) {
                problem(path, s, "\"" + s.text + "\" is not a count; write e.g. 200000, 200_000, 200k or 1.5M");
                return null;
            }
        }
        BigInteger i = whole(node, path, "a whole number");
        return i == null ? null : i.longValue();
    }

    private Boolean bool(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected true or false, got " + node.describe());
            return null;
        }
        Node.ScalarNode s = (Node.ScalarNode) node;
        String t = s.text.trim().toLowerCase(Locale.ROOT);
        boolean trueOrFalse = t.equals("true") || t.equals("false");
        if (s.type == Node.ScalarNode.Type.BOOLEAN || s.fromText) {
            if (trueOrFalse) {
                return t.equals("true");
            }
            problem(path, s, "expected true or false, got " + (s.fromText ? "\"" + s.text + "\"" : s.text));
            return null;
        }
        if (s.type == Node.ScalarNode.Type.STRING && trueOrFalse) {
            problem(path, s, "\"" + s.text + "\" is quoted; write true or false without quotes");
        } else {
            problem(path, s, "expected true or false, got " + s.describe());
        }
        return null;
    }

    private Duration duration(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected a duration, got " + node.describe());
            return null;
        }
        Node.ScalarNode s = (Node.ScalarNode) node;
        switch (s.type) {
            case INTEGER:
            case DECIMAL:
                problem(path, s, s.text + " has no unit; write e.g. " + s.text + "s or " + s.text + "ms");
                return null;
            case BOOLEAN:
                problem(path, s, "expected a duration, got " + s.text + "; " + Durations.EXAMPLES);
                return null;
            default:
                try {
                    return Durations.parse(s.text);
                } catch (IllegalArgumentException e) {
                    problem(path, s, e.getMessage());
                    return null;
                }
        }
    }

    private <E extends ConfigNamed> E choice(Node node, String path, E[] values) {
        if (isAbsent(node)) {
            return null;
        }
        List<String> names = ConfigNamed.names(values);
        if (!(node instanceof Node.ScalarNode)) {
            problem(path, node, "expected one of: " + String.join(", ", names) + ", got " + node.describe());
            return null;
        }
        Node.ScalarNode s = (Node.ScalarNode) node;
        E named = ConfigNamed.named(values, s.text);
        if (named != null) {
            return named;
        }
        String near = DidYouMean.nearest(s.text, names);
        problem(
                path,
                s,
                (s.type == Node.ScalarNode.Type.STRING ? "\"" + s.text + "\"" : s.text)
                        + " is not allowed, must be one of: " + String.join(", ", names)
                        + (near != null ? "; did you mean " + near + "?" : ""));
        return null;
    }

    private LocalTime timeOfDay(Node node, String path) {
        String t = text(node, path);
        if (t == null) {
            return null;
        }
        Matcher m = TIME_OF_DAY.matcher(t.trim());
        if (!m.matches()) {
            problem(path, node, "\"" + t + "\" is not a time of day; write HH:mm, e.g. \"00:00\"");
            return null;
        }
        return LocalTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    private ZoneId zone(Node node, String path) {
        String t = text(node, path);
        if (t == null) {
            return null;
        }
        try {
            return ZoneId.of(t.trim());
        } catch (DateTimeException e) {
            String near = DidYouMean.nearest(t, ZoneId.getAvailableZoneIds());
            problem(
                    path,
                    node,
                    "\"" + t + "\" is not a time zone"
                            + (near != null
                                    ? ", did you mean " + near + "?"
                                    : "; use a region id like America/Los_Angeles, or UTC"));
            return null;
        }
    }

    /** A list of text values; a single value stands for a list of one. */
    private List<String> strings(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (node instanceof Node.ScalarNode) {
            return List.of(((Node.ScalarNode) node).text);
        }
        if (!(node instanceof Node.ListNode)) {
            problem(path, node, "expected a list, got " + node.describe());
            return null;
        }
        List<Node> items = ((Node.ListNode) node).items;
        List<String> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < items.size(); i++) {
            String t = text(items.get(i), path + "[" + i + "]");
            if (t == null) {
                if (isAbsent(items.get(i))) {
                    problem(path + "[" + i + "]", items.get(i), "must not be empty");
                }
                ok = false;
            } else {
                out.add(t);
            }
        }
        return ok ? out : null;
    }

    private Map<String, String> textMap(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.MapNode)) {
            problem(path, node, "expected a mapping of names to values, got " + node.describe());
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        boolean ok = true;
        for (Node.Field f : ((Node.MapNode) node).fields.values()) {
            String p = Issues.join(path, f.key);
            String t = text(f.value, p);
            if (t == null) {
                if (isAbsent(f.value)) {
                    problem(p, null, "needs a value", f.keyLocation);
                }
                ok = false;
            } else {
                out.put(f.key, t);
            }
        }
        return ok ? out : null;
    }

    private List<Node> list(Node node, String path) {
        if (isAbsent(node)) {
            return null;
        }
        if (!(node instanceof Node.ListNode)) {
            problem(path, node, "expected a list, got " + node.describe());
            return null;
        }
        return ((Node.ListNode) node).items;
    }

    /** The fields of one mapping, checked against the keys allowed there. */
    private final class Fields implements Setting.Reader {
        final Node.MapNode node;
        final String path;

        Fields(Node.MapNode node, String path, List<String> allowed, Map<String, String> forbidden) {
            this.node = node;
            this.path = path;
            for (Node.Field f : node.fields.values()) {
                String p = Issues.join(path, f.key);
                if (forbidden.containsKey(f.key)) {
                    problem(p, null, "not allowed here: " + forbidden.get(f.key), f.keyLocation);
                } else if (!allowed.contains(f.key)) {
                    List<String> keys = new ArrayList<>(allowed);
                    keys.removeAll(forbidden.keySet());
                    problem(p, null, unknownKey(f.key, keys, "keys allowed here"), f.keyLocation);
                }
            }
        }

        private String p(String key) {
            return Issues.join(path, key);
        }

        boolean has(String key) {
            return !isAbsent(node.get(key));
        }

        Fields section(String key, List<String> keys) {
            Node n = node.get(key);
            if (isAbsent(n)) {
                return null;
            }
            if (!(n instanceof Node.MapNode)) {
                problem(p(key), n, "expected a mapping, got " + n.describe());
                return null;
            }
            return new Fields((Node.MapNode) n, p(key), keys, Collections.emptyMap());
        }

        List<Node> list(String key) {
            return ConfigBinder.this.list(node.get(key), p(key));
        }

        @Override
        public String text(String key) {
            return ConfigBinder.this.text(node.get(key), p(key));
        }

        @Override
        public Integer integer(String key) {
            return ConfigBinder.this.integer(node.get(key), p(key));
        }

        @Override
        public Double number(String key) {
            return ConfigBinder.this.number(node.get(key), p(key));
        }

        Long capacity(String key) {
            return ConfigBinder.this.capacity(node.get(key), p(key));
        }

        @Override
        public Boolean bool(String key) {
            return ConfigBinder.this.bool(node.get(key), p(key));
        }

        @Override
        public Duration duration(String key) {
            return ConfigBinder.this.duration(node.get(key), p(key));
        }

        @Override
        public <E extends ConfigNamed> E choice(String key, E[] values) {
            return ConfigBinder.this.choice(node.get(key), p(key), values);
        }

        LocalTime timeOfDay(String key) {
            return ConfigBinder.this.timeOfDay(node.get(key), p(key));
        }

        ZoneId zone(String key) {
            return ConfigBinder.this.zone(node.get(key), p(key));
        }

        List<String> strings(String key) {
            return ConfigBinder.this.strings(node.get(key), p(key));
        }

        Map<String, String> textMap(String key) {
            return ConfigBinder.this.textMap(node.get(key), p(key));
        }
    }
}
