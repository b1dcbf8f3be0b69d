package dev.sluice.instrumentation.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The annotations of advice classes, read from their class files by the agent's weaver, which
 * copies the annotated static methods into the hooked library methods.
 *
 * <p>The semantics are those of ByteBuddy's {@code Advice}, narrowed to what a hook needs. Every
 * advice method is suppressed: a {@code Throwable} it throws is dropped and the library method
 * runs as if there were no advice. Advice may call static methods and use locals and branches; it
 * may not use {@code invokedynamic} (no lambdas, no string concatenation), and it may only
 * reference the JDK, the bridge ({@code dev.sluice.bootstrap.*}) and the hooked library.
 */
public final class Advice {

    private Advice() {}

    /**
     * Runs before the method's body. Its return value is what {@link Enter} reads on exit; with
     * {@code skipOnNonNull}, a non-null value skips the body (the method then returns the default
     * value, or what the exit advice writes to {@link Return}).
     */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    public @interface OnMethodEnter {
        boolean skipOnNonNull() default false;
    }

    /**
     * Runs when the method returns and when its body was skipped; with {@code onThrowable}, also
     * when it throws, where {@link Thrown} holds what was thrown.
     */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    public @interface OnMethodExit {
        boolean onThrowable() default false;
    }

    /** The hooked instance ({@code this}). */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface This {}

    /** The method's argument at {@code value}; assigning to it changes the argument when not {@code readOnly}. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface Argument {
        int value();

        boolean readOnly() default true;
    }

    /** A fresh {@code Object[]} of the method's arguments, primitives boxed. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface AllArguments {}

    /** The value of a field the hooked class itself declares. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface FieldValue {
        String value();
    }

    /** The hooked class, as a {@code Class<?>}. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface Origin {}

    /** The hooked method's name, as a {@code String}. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface MethodName {}

    /** In exit advice: what the enter advice returned. */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface Enter {}

    /**
     * In exit advice: the value the method returns (the type's default when it threw); assigning
     * to it changes what the method returns when not {@code readOnly}. A reference-typed method's
     * value may be read and written as {@code Object}; a value written that the method cannot
     * return fails the advice (suppressed), and the method returns its own value.
     */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface Return {
        boolean readOnly() default true;
    }

    /**
     * In exit advice: what the method threw, or {@code null}; assigning to it changes what it
     * throws (or, set to {@code null}, makes it return) when not {@code readOnly}.
     */
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.PARAMETER)
    public @interface Thrown {
        boolean readOnly() default true;
    }
}
