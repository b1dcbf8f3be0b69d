package dev.sluice.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small document tree a config file is parsed into before it is bound to the model. It
 * keeps what a general-purpose tree (jackson-databind) would lose: the location of every key
 * and value, and whether a scalar was a real number or boolean rather than quoted text, which
 * the binder needs for its "quoted numbers are an error" rule and its messages.
 */
abstract class Node {
    final Location location;

    Node(Location location) {
        this.location = location;
    }

    /** How the node reads in a message: {@code "abc"}, {@code 12}, {@code a mapping}. */
    abstract String describe();

    /** A mapping: keys in document order. */
    static final class MapNode extends Node {
        final Map<String, Field> fields = new LinkedHashMap<>();

        MapNode(Location location) {
            super(location);
        }

        /** The field's value, or null when the key is absent. */
        Node get(String key) {
            Field f = fields.get(key);
            return f == null ? null : f.value;
        }

        void put(String key, Location keyLocation, Node value) {
            fields.put(key, new Field(key, keyLocation, value));
        }

        @Override
        String describe() {
            return "a mapping";
        }
    }

    /** A key of a mapping with its own location (unknown-key messages point at the key). */
    static final class Field {
        final String key;
        final Location keyLocation;
        Node value;

        Field(String key, Location keyLocation, Node value) {
            this.key = key;
            this.keyLocation = keyLocation;
            this.value = value;
        }
    }

    static final class ListNode extends Node {
        final List<Node> items = new ArrayList<>();

        ListNode(Location location) {
            super(location);
        }

        @Override
        String describe() {
            return "a list";
        }
    }

    static final class ScalarNode extends Node {
        enum Type {
            STRING,
            INTEGER,
            DECIMAL,
            BOOLEAN,
            NULL
        }

        final Type type;
        /** The scalar as written (YAML {@code yes} stays {@code yes}, {@code 0x1F} stays {@code 0x1F}). */
        final String text;
        /** For INTEGER a BigInteger, for DECIMAL a BigDecimal or Double; else null. */
        final Number number;
        /**
         * True for values that only exist as text (override strings from -D, env, agent args):
         * those are converted to numbers and booleans instead of being rejected as quoted.
         */
        final boolean fromText;

        private ScalarNode(Location location, Type type, String text, Number number, boolean fromText) {
            super(location);
            this.type = type;
            this.text = text;
            this.number = number;
            this.fromText = fromText;
        }

        static ScalarNode string(Location location, String text) {
            return new ScalarNode(location, Type.STRING, text, null, false);
        }

        static ScalarNode integer(Location location, String text, BigInteger value) {
            return new ScalarNode(location, Type.INTEGER, text, value, false);
        }

        static ScalarNode decimal(Location location, String text, Number value) {
            return new ScalarNode(location, Type.DECIMAL, text, value, false);
        }

        static ScalarNode bool(Location location, String text) {
            return new ScalarNode(location, Type.BOOLEAN, text, null, false);
        }

        static ScalarNode nullValue(Location location, String text) {
            return new ScalarNode(location, Type.NULL, text, null, false);
        }

        static ScalarNode overrideText(Location location, String text) {
            return new ScalarNode(location, Type.STRING, text, null, true);
        }

        boolean isNull() {
            return type == Type.NULL;
        }

        /** True when the text of a STRING scalar would be a number had it not been quoted. */
        boolean looksNumeric() {
            return type == Type.STRING
                    && text.trim().matches("[-+]?(\\d[\\d_]*)?(\\.\\d*)?([eE][-+]?\\d+)?")
                    && text.chars().anyMatch(Character::isDigit);
        }

        BigDecimal decimalValue() {
            if (number instanceof BigDecimal) {
                return (BigDecimal) number;
            }
            if (number instanceof BigInteger) {
                return new BigDecimal((BigInteger) number);
            }
            double d = number.doubleValue();
            return Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
        }

        @Override
        String describe() {
            return type == Type.STRING ? "\"" + text + "\"" : text;
        }
    }
}
