package dev.sluice.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns YAML or JSON text into a {@link Node} tree with the location of every key and value,
 * using Jackson's streaming parsers only (no databind: the agent jar stays small and starts
 * fast). YAML anchors and aliases are resolved; duplicate keys and syntax errors become
 * problems with their line.
 */
final class DocumentParser {
    enum Format {
        YAML,
        JSON
    }

    private static final JsonFactory JSON = new JsonFactory();

    /** Built with the first YAML document: a JVM that reads only JSON never loads SnakeYAML. */
    private static final class Yaml {
        // EMPTY_STRING_AS_NULL (the default) makes an empty plain value (`retry:`) null, i.e.
        // absent; a quoted "" stays an empty string.
        static final YAMLFactory FACTORY = YAMLFactory.builder()
                .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
                .build();
    }

    private final String source;
    private final Format format;
    private final List<ConfigProblem> problems;
    private final Map<String, Node> anchors = new HashMap<>();

    /** A parser of YAML text configured as every YAML document Sluice reads is. */
    static YAMLParser yamlParser(String text) throws IOException {
        return Yaml.FACTORY.createParser(text);
    }

    private DocumentParser(String source, Format format, List<ConfigProblem> problems) {
        this.source = source;
        this.format = format;
        this.problems = problems;
    }

    /**
     * The document's top-level mapping; an empty one for an empty document or when the text
     * cannot be parsed (the reason is added to problems, and nothing of the document is used).
     */
    static Node.MapNode parse(String text, Format format, String source, List<ConfigProblem> problems) {
        return new DocumentParser(source, format, problems).parse(text);
    }

    private Node.MapNode parse(String text) {
        Node.MapNode empty = new Node.MapNode(Location.inFile(source, 1, 1));
        int before = problems.size();
        try (JsonParser p = format == Format.YAML ? yamlParser(text) : JSON.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return empty;
            }
            Node root = read(p, first, "");
            JsonToken next = p.nextToken();
            if (next != null) {
                problems.add(ConfigProblem.at(
                        "", null, "only one YAML document is allowed, found another here", location(p)));
                return empty;
            }
            if (root instanceof Node.ScalarNode && ((Node.ScalarNode) root).isNull()) {
                return empty;
            }
            if (!(root instanceof Node.MapNode)) {
                problems.add(ConfigProblem.at(
                        "",
                        null,
                        "the top level must be a mapping of settings, not " + root.describe(),
                        root.location));
                return empty;
            }
            return (Node.MapNode) root;
        } catch (JsonProcessingException e) {
            problems.subList(before, problems.size()).clear();
            problems.add(syntaxProblem(e));
            return empty;
        } catch (IOException e) {
            problems.subList(before, problems.size()).clear();
            problems.add(ConfigProblem.at("", null, "cannot read: " + e.getMessage(), Location.inFile(source, 1, 1)));
            return empty;
        }
    }

    private Node read(JsonParser p, JsonToken token, String path) throws IOException {
        Location at = location(p);
        String anchor = format == Format.YAML ? ((YAMLParser) p).getCurrentAnchor() : null;
        Node node;
        switch (token) {
            case START_OBJECT:
                node = readMap(p, at, path);
                break;
            case START_ARRAY: {
                Node.ListNode list = new Node.ListNode(at);
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    list.items.add(read(p, t, path + "[" + list.items.size() + "]"));
                }
                node = list;
                break;
            }
            case VALUE_STRING:
                if (format == Format.YAML && ((YAMLParser) p).isCurrentAlias()) {
                    Node target = anchors.get(p.getText());
                    if (target == null) {
                        problems.add(ConfigProblem.at("", null, "YAML alias *" + p.getText() + " names no anchor", at));
                        return Node.ScalarNode.nullValue(at, "");
                    }
                    return target;
                }
                node = Node.ScalarNode.string(at, p.getText());
                break;
            case VALUE_NUMBER_INT:
                node = Node.ScalarNode.integer(at, p.getText(), p.getBigIntegerValue());
                break;
            case VALUE_NUMBER_FLOAT:
                node = decimal(p, at);
                break;
            case VALUE_TRUE:
            case VALUE_FALSE:
                node = Node.ScalarNode.bool(at, p.getText());
                break;
            case VALUE_NULL:
                node = Node.ScalarNode.nullValue(at, p.getText());
                break;
            default:
                node = Node.ScalarNode.string(at, String.valueOf(p.getText()));
                break;
        }
        if (anchor != null) {
            anchors.put(anchor, node);
        }
        return node;
    }

    private static Node decimal(JsonParser p, Location at) throws IOException {
        String text = p.getText();
        try {
            return Node.ScalarNode.decimal(at, text, p.getDecimalValue());
        } catch (JsonProcessingException | NumberFormatException notFinite) {
            // .inf, .nan: numbers to YAML, nothing a setting can use; the binder reports them.
            return Node.ScalarNode.decimal(at, text, Double.NaN);
        }
    }

    private Node.MapNode readMap(JsonParser p, Location at, String path) throws IOException {
        Node.MapNode map = new Node.MapNode(at);
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            String key = p.currentName();
            Location keyAt = location(p);
            Node value = read(p, p.nextToken(), Issues.join(path, key));
            Node.Field earlier = map.fields.get(key);
            if (earlier != null) {
                problems.add(ConfigProblem.at(
                        Issues.join(path, key),
                        null,
                        "duplicate key, first set at line " + earlier.keyLocation.line,
                        keyAt));
                continue;
            }
            map.put(key, keyAt, value);
        }
        return map;
    }

    private Location location(JsonParser p) {
        JsonLocation l = p.currentTokenLocation();
        return Location.inFile(source, l.getLineNr(), l.getColumnNr());
    }

    private ConfigProblem syntaxProblem(JsonProcessingException e) {
        String kind = format == Format.YAML ? "YAML" : "JSON";
        Throwable cause = e.getCause();
        if (cause instanceof MarkedYAMLException) {
            MarkedYAMLException m = (MarkedYAMLException) cause;
            String what = m.getProblem() == null ? firstLine(m.getMessage()) : m.getProblem();
            String context = m.getContext() == null ? "" : " (" + m.getContext() + ")";
            int line = m.getProblemMark() != null
                    ? m.getProblemMark().getLine() + 1
                    : e.getLocation() == null ? 1 : e.getLocation().getLineNr();
            int column = m.getProblemMark() != null ? m.getProblemMark().getColumn() + 1 : 0;
            return ConfigProblem.at(
                    "", null, kind + " syntax error: " + what + context, Location.inFile(source, line, column));
        }
        JsonLocation l = e.getLocation();
        return ConfigProblem.at(
                "",
                null,
                kind + " syntax error: " + firstLine(e.getOriginalMessage()),
                Location.inFile(source, l == null ? 1 : l.getLineNr(), l == null ? 0 : l.getColumnNr()));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
