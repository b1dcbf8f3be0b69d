package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class LibraryLoggersTest {

    /** Stands for a Caffeine class: takes its logger from the JDK as it initialises. */
    public static final class TakesASystemLogger {
        static final System.Logger LOGGER = System.getLogger("com.example.Cache");

        public static System.Logger logger() {
            return LOGGER;
        }
    }

    @Test
    void aRewrittenClassGetsTheAgentsLoggerUnderTheSameName() throws Exception {
        byte[] rewritten = LibraryLoggers.rewrite(classFile(TakesASystemLogger.class));
        Class<?> loaded = new OneClassLoader(TakesASystemLogger.class.getName(), rewritten)
                .loadClass(TakesASystemLogger.class.getName());
        Method logger = loaded.getMethod("logger");

        System.Logger got = (System.Logger) logger.invoke(null);

        assertThat(got).isInstanceOf(AgentSystemLogger.class);
        assertThat(got.getName()).isEqualTo("com.example.Cache");
        assertThat(got.isLoggable(System.Logger.Level.OFF)).isFalse();
        got.log(System.Logger.Level.DEBUG, "not shown at the default level {0}", 1); // must not throw
        assertThat(got.isLoggable(System.Logger.Level.WARNING))
                .as("the agent's default level")
                .isTrue();
        got.log(System.Logger.Level.WARNING, "a pattern MessageFormat cannot read {", 1); // logged as it is
    }

    @Test
    void onlyTheListedCallersAreRewritten() throws Exception {
        byte[] bytes = classFile(TakesASystemLogger.class);
        LibraryLoggers transformer = new LibraryLoggers();

        assertThat(transformer.transform(null, "com/example/TakesASystemLogger", null, null, bytes))
                .isNull();
        assertThat(transformer.transform(null, LibraryLoggers.SHADED_CAFFEINE + "cache/Node", null, null, bytes))
                .as("a Caffeine class not listed")
                .isNull();
        assertThat(transformer.transform(null, LibraryLoggers.SHADED_CAFFEINE + "cache/Caffeine", null, null, bytes))
                .isNotNull();
    }

    private static byte[] classFile(Class<?> type) throws Exception {
        String resource = "/" + type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }

    /** Defines one class from the given bytes, everything else from the test's loader. */
    private static final class OneClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(String name, byte[] bytes) {
            super(LibraryLoggersTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            if (className.equals(name)) {
                synchronized (getClassLoadingLock(className)) {
                    Class<?> done = findLoadedClass(className);
                    return done != null ? done : defineClass(className, bytes, 0, bytes.length);
                }
            }
            return super.loadClass(className, resolve);
        }
    }
}
