package dev.sluice.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Build step (the config module's {@code process-classes} phase): checks the price table written
 * in YAML, {@code src/main/prices/default-prices.yaml}, with the parser, binder and checks a
 * config file gets, fails the build on any problem, and writes it as the JSON resource
 * {@link DefaultPrices} reads. JSON because a JVM whose config is not YAML (the default: no
 * config file) then never loads SnakeYAML, about 90 classes and a third of the table's cost on
 * the agent's start thread; the YAML stays the source, with its comments.
 */
public final class DefaultPricesJson {

    private DefaultPricesJson() {}

    /** {@code args}: the YAML table, the JSON file to write. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: DefaultPricesJson <table.yaml> <table.json>");
        }
        Path yaml = Paths.get(args[0]);
        String text = new String(Files.readAllBytes(yaml), StandardCharsets.UTF_8);
        PriceTable checked = DefaultPrices.parse(text, yaml.getFileName().toString(), DocumentParser.Format.YAML);
        if (!checked.problems().isEmpty()) {
            throw new IllegalStateException("the price table " + yaml + " has problems: " + checked.problems());
        }
        Path json = Paths.get(args[1]);
        Files.createDirectories(json.toAbsolutePath().getParent());
        Files.write(json, toJson(text).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The YAML document as JSON, token by token with the parser config files get, numbers written
     * as they were (no trip through a double). Anchors and aliases are refused: copied token by
     * token, an alias would not carry what it names.
     */
    static String toJson(String yaml) throws IOException {
        StringWriter out = new StringWriter();
        try (YAMLParser in = DocumentParser.yamlParser(yaml);
                JsonGenerator json = new JsonFactory().createGenerator(out)) {
            for (JsonToken token = in.nextToken(); token != null; token = in.nextToken()) {
                if (in.isCurrentAlias() || in.getCurrentAnchor() != null) {
                    throw new IllegalArgumentException("the price table uses a YAML anchor or alias at "
                            + in.currentLocation() + "; write the values out");
                }
                if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                    json.writeNumber(in.getText());
                } else {
                    json.copyCurrentEvent(in);
                }
            }
        }
        return out.toString() + "\n";
    }
}
