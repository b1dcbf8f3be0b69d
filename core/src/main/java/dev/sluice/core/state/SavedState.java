package dev.sluice.core.state;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.config.Dimension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a governor learned that a restart would otherwise lose: each provider scope's learned
 * budgets (capacity, burst, room left, the share others take) and pause, which organization each
 * key counts against, and the room left in the configured buckets (a fixed window's count with the
 * window it belongs to). Saved as a small JSON document; read back, anything malformed is an
 * {@link IOException}, never a half-read state.
 */
public final class SavedState {

    /** Format of the document; a file of another version is ignored. */
    static final int VERSION = 1;

    public final long savedAtEpochMillis;
    public final List<Scope> scopes;
    public final List<ConfiguredBucket> buckets;
    /** {@code provider|keyId} to the organization its answers named. */
    public final Map<String, String> organizations;

    public SavedState(
            long savedAtEpochMillis,
            List<Scope> scopes,
            List<ConfiguredBucket> buckets,
            Map<String, String> organizations) {
        this.savedAtEpochMillis = savedAtEpochMillis;
        this.scopes = Collections.unmodifiableList(new ArrayList<>(scopes));
        this.buckets = Collections.unmodifiableList(new ArrayList<>(buckets));
        this.organizations = Collections.unmodifiableMap(new LinkedHashMap<>(organizations));
    }

    /** One provider scope: its key and name, until when the provider paused it, and its learned budgets. */
    public static final class Scope {
        public final String key;
        public final String displayName;
        public final long pausedUntilEpochMillis;
        public final List<Budget> budgets;

        public Scope(String key, String displayName, long pausedUntilEpochMillis, List<Budget> budgets) {
            this.key = key;
            this.displayName = displayName;
            this.pausedUntilEpochMillis = pausedUntilEpochMillis;
            this.budgets = Collections.unmodifiableList(new ArrayList<>(budgets));
        }
    }

    /** One learned budget as it stood at the save. */
    public static final class Budget {
        public final String name;
        public final Dimension dimension;
        public final long capacity;
        public final boolean announced;
        public final long burst;
        public final long windowMillis;
        public final long room;
        public final double externalShare;

        public Budget(
                String name,
                Dimension dimension,
                long capacity,
                boolean announced,
                long burst,
                long windowMillis,
                long room,
                double externalShare) {
            this.name = name;
            this.dimension = dimension;
            this.capacity = capacity;
            this.announced = announced;
            this.burst = burst;
            this.windowMillis = windowMillis;
            this.room = room;
            this.externalShare = externalShare;
        }
    }

    /** The room left in one bucket of a configured limit; for a window, the window it counts in. */
    public static final class ConfiguredBucket {
        public final String limitId;
        public final String scopeValue;
        public final long room;
        /** The start of the window the room belongs to (epoch millis), or -1 for a token bucket. */
        public final long windowStartEpochMillis;

        public ConfiguredBucket(String limitId, String scopeValue, long room, long windowStartEpochMillis) {
            this.limitId = limitId;
            this.scopeValue = scopeValue;
            this.room = room;
            this.windowStartEpochMillis = windowStartEpochMillis;
        }
    }

    // ------------------------------------------------------------------ JSON

    private static final JsonFactory JSON = new JsonFactory();

    public byte[] toJson() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("version", VERSION);
            g.writeNumberField("savedAt", savedAtEpochMillis);
            g.writeArrayFieldStart("scopes");
            for (Scope s : scopes) {
                g.writeStartObject();
                g.writeStringField("key", s.key);
                g.writeStringField("name", s.displayName);
                g.writeNumberField("pausedUntil", s.pausedUntilEpochMillis);
                g.writeArrayFieldStart("budgets");
                for (Budget b : s.budgets) {
                    g.writeStartObject();
                    g.writeStringField("name", b.name);
                    g.writeStringField("dimension", b.dimension.configName());
                    g.writeNumberField("capacity", b.capacity);
                    g.writeBooleanField("announced", b.announced);
                    g.writeNumberField("burst", b.burst);
                    g.writeNumberField("windowMillis", b.windowMillis);
                    g.writeNumberField("room", b.room);
                    g.writeNumberField("externalShare", b.externalShare);
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("buckets");
            for (ConfiguredBucket b : buckets) {
                g.writeStartObject();
                g.writeStringField("limit", b.limitId);
                g.writeStringField("value", b.scopeValue);
                g.writeNumberField("room", b.room);
                g.writeNumberField("windowStart", b.windowStartEpochMillis);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("organizations");
            for (Map.Entry<String, String> e : organizations.entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    /** Reads a document {@link #toJson} wrote; anything else is an {@link IOException} naming what is wrong. */
    public static SavedState fromJson(byte[] json) throws IOException {
        try (JsonParser p = JSON.createParser(new String(json, StandardCharsets.UTF_8))) {
            Map<String, Object> root = readObject(p, p.nextToken());
            Object version = root.get("version");
            if (!(version instanceof Number) || ((Number) version).intValue() != VERSION) {
                throw new IOException("not a Sluice state file of version " + VERSION);
            }
            List<Scope> scopes = new ArrayList<>();
            for (Object o : list(root, "scopes")) {
                Map<String, Object> s = map(o);
                List<Budget> budgets = new ArrayList<>();
                for (Object ob : list(s, "budgets")) {
                    Map<String, Object> b = map(ob);
                    Dimension d = Dimension.fromConfigName(text(b, "dimension"));
                    if (d == null) {
                        throw new IOException("unknown dimension " + b.get("dimension"));
                    }
                    budgets.add(new Budget(
                            text(b, "name"),
                            d,
                            number(b, "capacity"),
                            bool(b, "announced"),
                            number(b, "burst"),
                            number(b, "windowMillis"),
                            number(b, "room"),
                            real(b, "externalShare")));
                }
                scopes.add(new Scope(text(s, "key"), text(s, "name"), number(s, "pausedUntil"), budgets));
            }
            List<ConfiguredBucket> buckets = new ArrayList<>();
            for (Object o : list(root, "buckets")) {
                Map<String, Object> b = map(o);
                buckets.add(new ConfiguredBucket(
                        text(b, "limit"), text(b, "value"), number(b, "room"), number(b, "windowStart")));
            }
            Map<String, String> organizations = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : map(root.get("organizations")).entrySet()) {
                if (!(e.getValue() instanceof String)) {
                    throw new IOException("organization of " + e.getKey() + " is not a string");
                }
                organizations.put(e.getKey(), (String) e.getValue());
            }
            return new SavedState(number(root, "savedAt"), scopes, buckets, organizations);
        } catch (RuntimeException e) {
            throw new IOException("malformed state: " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> readObject(JsonParser p, JsonToken start) throws IOException {
        if (start != JsonToken.START_OBJECT) {
            throw new IOException("expected an object, found " + start);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.getCurrentName();
            m.put(name, readValue(p, p.nextToken()));
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("unterminated object");
        }
        return m;
    }

    private static Object readValue(JsonParser p, JsonToken t) throws IOException {
        if (t == null) {
            throw new IOException("truncated");
        }
        switch (t) {
            case START_OBJECT:
                return readObject(p, t);
            case START_ARRAY:
                List<Object> l = new ArrayList<>();
                JsonToken e;
                while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                    l.add(readValue(p, e));
                }
                return l;
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                return p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return p.getDoubleValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            default:
                return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) throws IOException {
        if (!(o instanceof Map)) {
            throw new IOException("expected an object");
        }
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> m, String name) throws IOException {
        Object o = m.get(name);
        if (!(o instanceof List)) {
            throw new IOException(name + " is not a list");
        }
        return (List<Object>) o;
    }

    private static String text(Map<String, Object> m, String name) throws IOException {
        Object o = m.get(name);
        if (!(o instanceof String)) {
            throw new IOException(name + " is not a string");
        }
        return (String) o;
    }

    private static long number(Map<String, Object> m, String name) throws IOException {
        Object o = m.get(name);
        if (!(o instanceof Long)) {
            throw new IOException(name + " is not a whole number");
        }
        return (Long) o;
    }

    private static double real(Map<String, Object> m, String name) throws IOException {
        Object o = m.get(name);
        if (!(o instanceof Number)) {
            throw new IOException(name + " is not a number");
        }
        double d = ((Number) o).doubleValue();
        if (Double.isNaN(d) || d < 0 || d > 1) {
            throw new IOException(name + " out of range");
        }
        return d;
    }

    private static boolean bool(Map<String, Object> m, String name) throws IOException {
        Object o = m.get(name);
        if (!(o instanceof Boolean)) {
            throw new IOException(name + " is not true or false");
        }
        return (Boolean) o;
    }
}
