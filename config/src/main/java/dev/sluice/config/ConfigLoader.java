package dev.sluice.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Loads a {@link SluiceConfig} from {@link ConfigSources}, by precedence: agent arguments over
 * {@code -Dsluice.*} system properties over {@code SLUICE_*} environment variables over the
 * config file over the defaults. The file is the one named by {@code config=} (agent argument),
 * {@code sluice.config} or {@code SLUICE_CONFIG}, with the same precedence, else
 * {@link ConfigSources#file()}; {@code .yaml}/{@code .yml} files are read as YAML, {@code .json}
 * as JSON.
 *
 * <p>Loading either returns a complete, valid configuration or throws a {@link ConfigException}
 * listing every problem found (syntax, unknown keys, types, ranges, references, overrides);
 * there is never a partly applied config. Loading has no other effect, so reloading is calling
 * {@link #load(ConfigSources)} again with the same sources.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    /**
     * @throws ConfigException with every problem found; no configuration is produced then
     */
    public static SluiceConfig load(ConfigSources sources) throws ConfigException {
        List<ConfigProblem> problems = new ArrayList<>();
        Overrides overrides = Overrides.collect(sources, problems);
        Overrides.FileChoice file = overrides.file(sources.file().orElse(null), problems);
        Node.MapNode root = null;
        String base = SluiceConfig.DEFAULTS_ORIGIN;
        if (file != null) {
            base = "file " + file.path;
            root = read(file, problems);
        }
        if (root == null) {
            root = new Node.MapNode(null);
        }
        expandShorthands(root);
        overrides.applyTo(root);

        ConfigBinder binder = new ConfigBinder();
        SluiceConfig.Builder builder = binder.bind(root);
        problems.addAll(binder.problems());
        builder.origin(overrides.origin(base));
        for (Issues.Issue issue : builder.issues().list()) {
            if (!binder.covers(issue.path)) {
                problems.add(ConfigProblem.at(issue.path, issue.value, issue.message, binder.locate(issue.path)));
            }
        }
        String pricesFile = PriceTable.unreadable(builder.pricesFile);
        if (pricesFile != null) {
            problems.add(ConfigProblem.at(
                    ConfigSchema.PRICES_FILE.path,
                    Issues.render(builder.pricesFile),
                    pricesFile,
                    binder.locate(ConfigSchema.PRICES_FILE.path)));
        }
        if (!problems.isEmpty()) {
            // Overrides and whole-document problems first, then the file's in line order.
            problems.sort(Comparator.comparingInt((ConfigProblem p) -> p.line() == 0 ? 0 : 1)
                    .thenComparingInt(ConfigProblem::line)
                    .thenComparingInt(ConfigProblem::column));
            throw new ConfigException(problems);
        }
        return builder.build();
    }

    private static Node.MapNode read(Overrides.FileChoice file, List<ConfigProblem> problems) {
        String name = file.path.toString();
        String lower = name.toLowerCase(Locale.ROOT);
        DocumentParser.Format format;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            format = DocumentParser.Format.YAML;
        } else if (lower.endsWith(".json")) {
            format = DocumentParser.Format.JSON;
        } else {
            problems.add(new ConfigProblem(
                    Overrides.CONFIG,
                    "\"" + name + "\"",
                    name + " has an unknown extension, use .yaml, .yml or .json",
                    file.source,
                    0,
                    0));
            return null;
        }
        String text;
        try {
            if (Files.isDirectory(file.path)) {
                throw new IOException("it is a directory");
            }
            // A strict decoder: a file in another encoding is reported, not read as replacement characters.
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file.path)))
                    .toString();
        } catch (NoSuchFileException e) {
            problems.add(cannotRead(file, "no such file"));
            return null;
        } catch (AccessDeniedException e) {
            problems.add(cannotRead(file, "permission denied"));
            return null;
        } catch (CharacterCodingException e) {
            problems.add(cannotRead(file, "it is not UTF-8 text"));
            return null;
        } catch (IOException | SecurityException e) {
            problems.add(cannotRead(file, e.getMessage()));
            return null;
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        return DocumentParser.parse(text, format, name, problems);
    }

    private static ConfigProblem cannotRead(Overrides.FileChoice file, String why) {
        return new ConfigProblem(
                Overrides.CONFIG, "\"" + file.path + "\"", "cannot read " + file.path + ": " + why, file.source, 0, 0);
    }

    /** {@code store: redis://host:6379} means {@code store: {url: redis://host:6379}}: each section's declared shorthand. */
    private static void expandShorthands(Node.MapNode root) {
        for (Section<?, ?> section : ConfigSchema.sections()) {
            if (section.shorthand == null) {
                continue;
            }
            Node.Field field = root.fields.get(section.key);
            if (field != null && field.value instanceof Node.ScalarNode && !((Node.ScalarNode) field.value).isNull()) {
                Node.MapNode map = new Node.MapNode(field.value.location);
                map.put(section.shorthand.key, field.keyLocation, field.value);
                field.value = map;
            }
        }
    }
}
