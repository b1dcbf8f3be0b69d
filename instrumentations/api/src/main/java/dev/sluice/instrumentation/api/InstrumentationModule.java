package dev.sluice.instrumentation.api;

import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One library family the agent can govern: which classes it hooks, which advice goes on which
 * methods, and where its helper classes are.
 *
 * <p>Two kinds of code make up an instrumentation. <b>Advice</b> (ByteBuddy's {@code
 * net.bytebuddy.asm.Advice}, every advice method {@code suppress = Throwable.class}) is inlined
 * into the library's classes; it may only reference bootstrap types ({@code
 * dev.sluice.bootstrap.*}), the JDK and the hooked library, and it only calls the bridge. <b>Helpers</b> (the {@code HttpTransport}, body taps,
 * callbacks) are typed against the library; they live in {@link #helperPackage()} and are
 * defined by {@link HelperClassLoader} next to each copy of the library, never by the agent's
 * own class loader. The helper named by {@link #hookClassName()} implements
 * {@code dev.sluice.bootstrap.Hook} and is what the advice reaches.
 *
 * <p>Implementations are stateless, have a public no-argument constructor, and must not load
 * library classes: the agent reads them at start-up before any library is loaded.
 */
public abstract class InstrumentationModule {

    /** Short name shown in the start line and logs, e.g. {@code okhttp}. */
    public abstract String name();

    /**
     * Exact binary names of the classes to transform. Exact names keep type matching at
     * start-up cheap: no hierarchy walk, no class loading.
     */
    public abstract List<String> hookedTypeNames();

    /** Declares the advice of this module: which methods of the hooked types get which advice. */
    public abstract void declareAdvice(AdviceSink sink);

    /** Package (with trailing dot) whose classes are helpers defined next to the library. */
    public abstract String helperPackage();

    /** The helper implementing {@code dev.sluice.bootstrap.Hook}, with a public no-arg constructor. */
    public abstract String hookClassName();

    /**
     * The HTTP clients whose every exchange to a provider this module governs, by the names
     * {@code dev.sluice.bootstrap.Connections} reports connections under ({@code okhttp},
     * {@code jdk-http-client}, {@code apache-httpclient-5}, {@code netty}...): connections those
     * clients open are not counted as ungoverned. None by default (retry layers, SDK gates).
     */
    public List<String> governedClients() {
        return java.util.Collections.emptyList();
    }

    /**
     * Packages of the hooked types' own (named) module that the module does not export and its
     * helpers implement types of or read the non-public members of: the agent opens each (an open
     * package is also exported at run time) to the helpers' loader alone, before the first helper
     * is defined. A helper must work without it (the JVM can refuse); none by default.
     */
    public List<String> packagesOpenedToHelpers() {
        return java.util.Collections.emptyList();
    }

    /** Receives the advice declarations of a module. */
    public interface AdviceSink {
        /**
         * Applies the advice class named {@code adviceClassName} (annotated with ByteBuddy's {@code
         * Advice}) to the methods {@code methods} matches in every hooked type. The advice class
         * must be readable (as bytes) from the module's own class loader; it is never loaded.
         * The matcher sees the method as read from the class file: it may test names, modifiers,
         * and the names of parameter and return types, never anything that would resolve a type.
         * A method matched by two declarations is an error: the class is then left untouched.
         */
        void advise(ElementMatcher<? super MethodDescription> methods, String adviceClassName);
    }
}
