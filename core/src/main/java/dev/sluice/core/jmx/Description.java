package dev.sluice.core.jmx;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What an MXBean attribute or operation means, shown by consoles (JConsole, VisualVM, JMC) as its
 * description; on the getter of an attribute, on the method of an operation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Description {

    String value();

    /** Names of an operation's parameters, in order (consoles otherwise show p0, p1...). */
    String[] params() default {};
}
