package dev.sluice.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A mapping of the document declared in {@link ConfigSchema}: the top level, or a section such
 * as {@code retry} whose scalars bind to one builder. Its entries, in declaration order, are the
 * keys allowed in it, the order they are bound and validated in, and the order they are listed
 * in messages. The factory methods declare a setting and add it here.
 *
 * @param <C> what the section's values are read from (the built section; the top level reads its
 *        builder)
 * @param <B> the section's builder
 */
final class Section<C, B> extends ConfigSchema.Entry {
    /** The dotted path of the mapping; empty for the top level. */
    final String path;

    private final Plumbing<C, B> plumbing;
    private final List<ConfigSchema.Entry> entries = new ArrayList<>();
    private final List<Setting<C, B, ?>> settings = new ArrayList<>();
    /** Listed as {@code retry.*} among the settings that can be given outside the file. */
    boolean abbreviated;
    /** The setting a scalar in place of this section sets, or null. */
    Setting<C, B, ?> shorthand;

    /**
     * How a section's values are built and found: an anonymous class per section, not four method
     * references, for the reason {@link Setting.Field} gives.
     */
    abstract static class Plumbing<C, B> {
        /** A builder holding the defaults. */
        abstract B newBuilder();

        /** Builds without validating (the loader validates everything at once). */
        abstract C buildUnchecked(B builder);

        /** This section of a whole configuration. */
        abstract C of(SluiceConfig config);

        /** Sets the built section on the top-level builder (never called for the top level). */
        abstract void attach(SluiceConfig.Builder root, C section);
    }

    Section(String key, String path, Plumbing<C, B> plumbing) {
        super(key);
        this.path = path;
        this.plumbing = plumbing;
    }

    /** A section of scalar settings inside this one. */
    <D, E> Section<D, E> section(String key, Plumbing<D, E> plumbing) {
        return add(new Section<>(key, Issues.join(path, key), plumbing));
    }

    /** A list or mapping bound by dedicated code; only its keys are declared here. */
    ConfigSchema.Structure structure(String key, String... keys) {
        return add(new ConfigSchema.Structure(key, keys));
    }

    Setting<C, B, Boolean> flag(String key, boolean defaultValue, Setting.Field<C, B, Boolean> field) {
        return setting(new Setting<>(this, key, "true or false", defaultValue, Setting.Read.BOOL, field));
    }

    Setting<C, B, Integer> whole(String key, int defaultValue, Setting.Field<C, B, Integer> field) {
        return setting(new Setting<>(this, key, "whole number", defaultValue, Setting.Read.INTEGER, field));
    }

    Setting<C, B, Double> number(String key, double defaultValue, Setting.Field<C, B, Double> field) {
        return setting(new Setting<>(this, key, "number", defaultValue, Setting.Read.NUMBER, field));
    }

    Setting<C, B, Duration> duration(String key, Duration defaultValue, Setting.Field<C, B, Duration> field) {
        return setting(new Setting<>(this, key, "duration", defaultValue, Setting.Read.DURATION, field));
    }

    Setting<C, B, String> text(String key, String defaultValue, Setting.Field<C, B, String> field) {
        return setting(new Setting<>(this, key, "text", defaultValue, Setting.Read.TEXT, field));
    }

    <V extends ConfigNamed> Setting<C, B, V> choice(
            String key, V defaultValue, V[] values, Setting.Field<C, B, V> field) {
        return setting(new Setting<>(
                this,
                key,
                "one of: " + String.join(", ", ConfigNamed.names(values)),
                defaultValue,
                new Setting.Choice<>(values),
                field));
    }

    /** Lists this section as {@code key.*} where the settings that can be given outside the file are listed. */
    Section<C, B> abbreviated() {
        this.abbreviated = true;
        return this;
    }

    private <S extends Setting<C, B, ?>> S setting(S s) {
        settings.add(s);
        return add(s);
    }

    private <X extends ConfigSchema.Entry> X add(X entry) {
        for (ConfigSchema.Entry e : entries) {
            if (e.key.equals(entry.key)) {
                throw new IllegalStateException(Issues.join(path, entry.key) + " is declared twice");
            }
        }
        entries.add(entry);
        return entry;
    }

    // ---- use --------------------------------------------------------------------------------

    /** Settings, sections and structures, in declaration order. */
    List<ConfigSchema.Entry> entries() {
        return Collections.unmodifiableList(entries);
    }

    /** The keys allowed in this mapping, in declaration order. */
    List<String> keys() {
        List<String> keys = new ArrayList<>(entries.size());
        for (ConfigSchema.Entry e : entries) {
            keys.add(e.key);
        }
        return Collections.unmodifiableList(keys);
    }

    /** This section's own scalar settings, in declaration order. */
    List<Setting<C, B, ?>> settings() {
        return Collections.unmodifiableList(settings);
    }

    /** The entry as one of this section's own settings, typed; null for a section or structure. */
    Setting<C, B, ?> settingOf(ConfigSchema.Entry entry) {
        for (Setting<C, B, ?> s : settings) {
            if (s == entry) {
                return s;
            }
        }
        return null;
    }

    B newBuilder() {
        return plumbing.newBuilder();
    }

    C buildUnchecked(B builder) {
        return plumbing.buildUnchecked(builder);
    }

    C of(SluiceConfig config) {
        return plumbing.of(config);
    }

    void attach(SluiceConfig.Builder root, C section) {
        plumbing.attach(root, section);
    }

    /** Sets every setting of a new builder to its declared default. */
    void applyDefaults(B builder) {
        for (Setting<C, B, ?> s : settings) {
            applyDefault(s, builder);
        }
    }

    private static <C, B, T> void applyDefault(Setting<C, B, T> s, B builder) {
        s.set(builder, s.defaultValue);
    }

    /** Sets every setting of the builder to the value it has in {@code from}. */
    void copy(C from, B to) {
        for (Setting<C, B, ?> s : settings) {
            copy(s, from, to);
        }
    }

    private static <C, B, T> void copy(Setting<C, B, T> s, C from, B to) {
        s.set(to, s.get(from));
    }

    /** Ranges and missing values of every setting, in declaration order. */
    void validate(C config, String sectionPath, Issues issues) {
        for (Setting<C, B, ?> s : settings) {
            s.validate(config, sectionPath, issues);
        }
    }

    /** Whether every setting has the same value in both. */
    boolean sameValues(C a, C b) {
        for (Setting<C, B, ?> s : settings) {
            if (!Objects.equals(s.get(a), s.get(b))) {
                return false;
            }
        }
        return true;
    }

    /** The hash of the settings' values in declaration order (what {@code Objects.hash} of them gives). */
    int hashValues(C config) {
        Object[] values = new Object[settings.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = settings.get(i).get(config);
        }
        return Objects.hash(values);
    }
}
