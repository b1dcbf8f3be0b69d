package dev.sluice.config;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One scalar setting, declared once in {@link ConfigSchema}: its key and dotted path, how the
 * binder reads its type, its default, the range it must be in, whether a reload may change it
 * live, and a line of documentation. Everything that used to name a setting in several places
 * (allowed keys, binding, overrides by dotted path, did-you-mean, validation, defaults, equality)
 * reads it from here.
 *
 * <p>Declarations are completed during {@link ConfigSchema}'s static initialisation (the fluent
 * methods below) and never change afterwards.
 *
 * @param <C> the object the value is read from ({@link RetryConfig}; for top-level settings the
 *        {@link SluiceConfig.Builder}, whose fields are the top level's)
 * @param <B> the builder the value is written to
 * @param <T> the value's type
 */
final class Setting<C, B, T> extends ConfigSchema.Entry {
    /** How the binder reads one scalar from a mapping; implemented by the binder's view of a mapping. */
    interface Reader {
        String text(String key);

        Integer integer(String key);

        Double number(String key);

        Boolean bool(String key);

        Duration duration(String key);

        <E extends ConfigNamed> E choice(String key, E[] values);
    }

    /**
     * Where the value is read and written: its getter (or field) and its builder's setter. An
     * anonymous class per setting rather than two method references: the JVM spins a class for
     * each method reference as the schema initialises, and the agent builds the schema as the
     * application starts. The schema's 86 spun classes cost ~33 ms of CPU on the agent's start
     * thread and more work for the JIT; a class read from the agent jar costs a fraction of that
     * (docs/startup-figures.md).
     */
    abstract static class Field<C, B, T> {
        abstract T get(C from);

        abstract void set(B to, T value);
    }

    /** A rule relating a setting to others of its section, checked right after its own range. */
    /**
     * How a setting's value is read from its mapping: one instance per type of value, a class
     * each for the reason {@link Field} gives.
     */
    abstract static class Read<T> {
        abstract T from(Reader in, String key);

        static final Read<Boolean> BOOL = new Read<>() {
            @Override
            Boolean from(Reader in, String key) {
                return in.bool(key);
            }
        };
        static final Read<Integer> INTEGER = new Read<>() {
            @Override
            Integer from(Reader in, String key) {
                return in.integer(key);
            }
        };
        static final Read<Double> NUMBER = new Read<>() {
            @Override
            Double from(Reader in, String key) {
                return in.number(key);
            }
        };
        static final Read<Duration> DURATION = new Read<>() {
            @Override
            Duration from(Reader in, String key) {
                return in.duration(key);
            }
        };
        static final Read<String> TEXT = new Read<>() {
            @Override
            String from(Reader in, String key) {
                return in.text(key);
            }
        };
    }

    /** One of {@code values}, by its configuration name. */
    static final class Choice<E extends ConfigNamed> extends Read<E> {
        private final E[] values;

        Choice(E[] values) {
            this.values = values;
        }

        @Override
        E from(Reader in, String key) {
            return in.choice(key, values);
        }
    }

    interface Check<C> {
        /** @param path the setting's full dotted path */
        void check(C config, String path, Issues issues);
    }

    final Section<C, B> section;
    /** The dotted path from the top of the document: {@code retry.maxAttempts}. */
    final String path;
    /** What the value is, for documentation: {@code duration}, {@code whole number}, {@code one of: ...}. */
    final String type;

    final T defaultValue;
    private final Read<T> read;
    private final Field<C, B, T> field;
    private Rule<? super T> rule;
    private Check<C> also;
    private boolean live;
    private boolean shorthand;
    private String doc = "";

    Setting(Section<C, B> section, String key, String type, T defaultValue, Read<T> read, Field<C, B, T> field) {
        super(key);
        this.section = section;
        this.path = Issues.join(section.path, key);
        this.type = type;
        this.defaultValue = Objects.requireNonNull(defaultValue, key);
        this.read = read;
        this.field = field;
    }

    // ---- declaration ------------------------------------------------------------------------

    /** The range the value must be in; reported as "{@code v} is not allowed, must be {@code rule}". */
    Setting<C, B, T> mustBe(Rule<? super T> rule) {
        this.rule = rule;
        return this;
    }

    /** A rule involving other settings of the section, checked after this one's range. */
    Setting<C, B, T> also(Check<C> check) {
        this.also = check;
        return this;
    }

    /** A reload may apply a new value to the running governor (else it needs a restart). */
    Setting<C, B, T> live() {
        this.live = true;
        return this;
    }

    /** A scalar written in place of the whole section sets this setting ({@code store: redis://...}). */
    Setting<C, B, T> shorthand() {
        this.shorthand = true;
        section.shorthand = this;
        return this;
    }

    Setting<C, B, T> doc(String doc) {
        this.doc = Objects.requireNonNull(doc);
        return this;
    }

    // ---- use --------------------------------------------------------------------------------

    boolean isLive() {
        return live;
    }

    boolean isShorthand() {
        return shorthand;
    }

    String doc() {
        return doc;
    }

    /** The rule's text ({@code >= 1}), or null when any value of the type is allowed. */
    String rule() {
        return rule == null ? null : rule.text;
    }

    /** The value as the binder reads it from this mapping; null when absent or reported. */
    T read(Reader in) {
        return read.from(in, key);
    }

    T get(C config) {
        return field.get(config);
    }

    void set(B builder, T value) {
        field.set(builder, value);
    }

    /** This setting's value in a whole configuration. */
    T valueIn(SluiceConfig config) {
        return get(section.of(config));
    }

    /** Reports a missing value, a value out of range, and what {@link #also} finds. */
    void validate(C config, String sectionPath, Issues issues) {
        String p = Issues.join(sectionPath, key);
        T value = get(config);
        if (value == null) {
            issues.missing(p);
        } else if (rule != null) {
            issues.check(rule.test.test(value), p, value, rule.text);
        }
        if (also != null) {
            also.check(config, p, issues);
        }
    }

    @Override
    public String toString() {
        return path;
    }

    /** A range a value must be in, with the words a problem message uses for it. */
    static final class Rule<T> {
        final String text;
        final Predicate<T> test;

        private Rule(String text, Predicate<T> test) {
            this.text = text;
            this.test = test;
        }

        static <T> Rule<T> of(String text, Predicate<T> test) {
            return new Rule<>(text, test);
        }

        // The predicates are anonymous classes, not lambdas, for the reason Field gives.

        /** {@code >= min}; numbers must also be finite. */
        static Rule<Number> atLeast(double min) {
            return of(">= " + Issues.number(min), new Predicate<>() {
                @Override
                public boolean test(Number n) {
                    return finite(n) && n.doubleValue() >= min;
                }
            });
        }

        /** {@code > min}; numbers must also be finite. */
        static Rule<Number> above(double min) {
            return of("> " + Issues.number(min), new Predicate<>() {
                @Override
                public boolean test(Number n) {
                    return finite(n) && n.doubleValue() > min;
                }
            });
        }

        static Rule<Number> between(double min, double max) {
            return of("between " + Issues.number(min) + " and " + Issues.number(max), new Predicate<>() {
                @Override
                public boolean test(Number n) {
                    return n.doubleValue() >= min && n.doubleValue() <= max;
                }
            });
        }

        /** {@code > min and <= max}. */
        static Rule<Number> aboveAtMost(double min, double max) {
            return of("> " + Issues.number(min) + " and <= " + Issues.number(max), new Predicate<>() {
                @Override
                public boolean test(Number n) {
                    return n.doubleValue() > min && n.doubleValue() <= max;
                }
            });
        }

        /** A duration {@code > 0}. */
        static Rule<Duration> positive() {
            return of("> 0", new Predicate<>() {
                @Override
                public boolean test(Duration d) {
                    return !d.isNegative() && !d.isZero();
                }
            });
        }

        /** A duration {@code >= 0}, with what zero means when it means something. */
        static Rule<Duration> notNegative(String zeroMeans) {
            return of(zeroMeans == null ? ">= 0" : ">= 0 (" + zeroMeans + ")", new Predicate<>() {
                @Override
                public boolean test(Duration d) {
                    return !d.isNegative();
                }
            });
        }

        private static boolean finite(Number n) {
            return Double.isFinite(n.doubleValue());
        }
    }
}
