package dev.sluice.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings given outside the file: agent arguments, {@code -Dsluice.*} system properties and
 * {@code SLUICE_*} environment variables, resolved by precedence (arguments over properties over
 * environment) and written into the document tree as text scalars, so they are converted and
 * validated exactly like the file's values and their problems name their source.
 */
final class Overrides {
    /** Every dotted path that can be set from outside the file, to the setting it sets ({@code store} sets {@code store.url}). */
    private static final Map<String, String> TARGETS = ConfigSchema.overridePaths();
    /** Every scalar that can be set from outside the file, by its dotted path. */
    static final List<String> PATHS = List.copyOf(TARGETS.keySet());

    static final String CONFIG = "config";
    static final String AGENT_ARGUMENT = "agent argument";
    private static final String SETTABLE = ConfigSchema.settableList();

    /** Normalised name (no case, {@code _}, {@code .}, {@code -}) to the path it sets. */
    private static final Map<String, String> BY_NORMALISED = new LinkedHashMap<>();

    static {
        for (Map.Entry<String, String> e : TARGETS.entrySet()) {
            BY_NORMALISED.put(DidYouMean.normalise(e.getKey()), e.getValue());
        }
    }

    /** One setting from one source. */
    static final class Setting {
        final String path;
        final String value;
        /** Where a problem with the value says it came from: {@code -Dsluice.mode}, {@code SLUICE_MODE}, {@code agent argument}. */
        final String source;
        /** How the origin line names it: {@code -Dsluice.mode}, {@code agent argument mode}. */
        final String originLabel;

        final int rank;

        Setting(String path, String value, String source, String originLabel, int rank) {
            this.path = path;
            this.value = value;
            this.source = source;
            this.originLabel = originLabel;
            this.rank = rank;
        }
    }

    /** The config file to read and which source named it. */
    static final class FileChoice {
        final Path path;
        final String source;

        FileChoice(Path path, String source) {
            this.path = path;
            this.source = source;
        }
    }

    private final Map<String, Setting> winners = new LinkedHashMap<>();
    private Setting fileSetting;

    private Overrides() {}

    static Overrides collect(ConfigSources sources, List<ConfigProblem> problems) {
        Overrides o = new Overrides();
        Map<String, Setting> level = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : sources.env().entrySet()) {
            String name = e.getKey();
            o.add(
                    level,
                    name.substring(ConfigSources.ENV_PREFIX.length()),
                    e.getValue(),
                    name,
                    name,
                    name,
                    0,
                    problems);
        }
        o.promote(level);
        for (Map.Entry<String, String> e : sources.systemProperties().entrySet()) {
            String label = "-D" + e.getKey();
            o.add(
                    level,
                    e.getKey().substring(ConfigSources.PROPERTY_PREFIX.length()),
                    e.getValue(),
                    label,
                    label,
                    label,
                    1,
                    problems);
        }
        o.promote(level);
        String args = sources.agentArgs();
        if (args != null) {
            for (String pair : args.split(",")) {
                String p = pair.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq <= 0) {
                    problems.add(new ConfigProblem(p, null, "expected key=value", AGENT_ARGUMENT, 0, 0));
                    continue;
                }
                String key = p.substring(0, eq).trim();
                o.add(
                        level,
                        key,
                        p.substring(eq + 1).trim(),
                        AGENT_ARGUMENT,
                        AGENT_ARGUMENT + " " + key,
                        null,
                        2,
                        problems);
            }
        }
        o.promote(level);
        return o;
    }

    /**
     * @param problemPath the path an unknown-setting problem is reported under; null to report
     *        it under the key with the source in parentheses
     */
    private void add(
            Map<String, Setting> level,
            String key,
            String value,
            String source,
            String originLabel,
            String problemPath,
            int rank,
            List<ConfigProblem> problems) {
        String normalised = DidYouMean.normalise(key);
        String path = normalised.equals(CONFIG) ? CONFIG : BY_NORMALISED.get(normalised);
        if (path == null) {
            List<String> known = new ArrayList<>(PATHS);
            known.add(CONFIG);
            String near = DidYouMean.nearest(key, known);
            String message = near != null
                    ? "unknown setting, did you mean " + near + "?"
                    : "unknown setting; settings that can be given here are " + CONFIG + ", " + SETTABLE;
            problems.add(
                    problemPath != null
                            ? new ConfigProblem(problemPath, null, message, null, 0, 0)
                            : new ConfigProblem(key, null, message, source, 0, 0));
            return;
        }
        Setting earlier = level.get(path);
        if (earlier != null && !earlier.value.equals(value)) {
            problems.add(new ConfigProblem(
                    path,
                    value,
                    "set twice with different values, \"" + earlier.value + "\" by " + earlier.originLabel + " and \""
                            + value + "\" by " + originLabel,
                    null,
                    0,
                    0));
            return;
        }
        level.put(path, new Setting(path, value, source, originLabel, rank));
    }

    /** Moves one precedence level's settings over the lower levels' ones. */
    private void promote(Map<String, Setting> level) {
        Setting file = level.remove(CONFIG);
        if (file != null) {
            fileSetting = file;
        }
        winners.putAll(level);
        level.clear();
    }

    /** The file named by the highest source, else the explicit one; null when there is none. Adds a problem for an unusable name. */
    FileChoice file(Path explicit, List<ConfigProblem> problems) {
        if (fileSetting != null) {
            if (fileSetting.value.isEmpty()) {
                problems.add(new ConfigProblem(CONFIG, "\"\"", "names no file", fileSetting.source, 0, 0));
                return null;
            }
            try {
                return new FileChoice(Paths.get(fileSetting.value), fileSetting.source);
            } catch (InvalidPathException e) {
                problems.add(new ConfigProblem(
                        CONFIG,
                        "\"" + fileSetting.value + "\"",
                        "\"" + fileSetting.value + "\" is not a valid path: " + e.getReason(),
                        fileSetting.source,
                        0,
                        0));
                return null;
            }
        }
        return explicit == null ? null : new FileChoice(explicit, "ConfigSources.file");
    }

    /** Writes the winning settings into the tree, creating sections as needed. */
    void applyTo(Node.MapNode root) {
        for (Setting s : winners.values()) {
            Location at = Location.override(s.source);
            String[] parts = s.path.split("\\.");
            Node.MapNode parent = root;
            for (int i = 0; i < parts.length - 1 && parent != null; i++) {
                Node child = parent.get(parts[i]);
                if (child == null || (child instanceof Node.ScalarNode && ((Node.ScalarNode) child).isNull())) {
                    Node.MapNode section = new Node.MapNode(at);
                    parent.put(parts[i], at, section);
                    parent = section;
                } else if (child instanceof Node.MapNode) {
                    parent = (Node.MapNode) child;
                } else {
                    parent = null; // the file has something else there; binding reports it
                }
            }
            if (parent != null) {
                parent.put(parts[parts.length - 1], at, Node.ScalarNode.overrideText(at, s.value));
            }
        }
    }

    /** Not a lambda: the agent builds its configuration as the application starts (see Setting.Field). */
    private static final Comparator<Setting> BY_RANK_THEN_SCHEMA_ORDER = new Comparator<>() {
        @Override
        public int compare(Setting a, Setting b) {
            int byRank = Integer.compare(a.rank, b.rank);
            return byRank != 0 ? byRank : Integer.compare(PATHS.indexOf(a.path), PATHS.indexOf(b.path));
        }
    };

    /** "file /etc/sluice.yaml + -Dsluice.mode + agent argument retry.maxAttempts". */
    String origin(String base) {
        List<Setting> applied = new ArrayList<>(winners.values());
        applied.sort(BY_RANK_THEN_SCHEMA_ORDER);
        StringBuilder b = new StringBuilder(base);
        for (Setting s : applied) {
            b.append(" + ").append(s.originLabel);
        }
        return b.toString();
    }
}
