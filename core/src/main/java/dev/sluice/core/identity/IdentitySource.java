package dev.sluice.core.identity;

import com.github.benmanes.caffeine.cache.Cache;
import dev.sluice.core.Caches;
import dev.sluice.core.provider.Headers;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Function;

/**
 * One place a tenant, team or traffic class can come from: a request header, the application's
 * SLF4J MDC, a system property, the calling thread's name, the calling code's package, the API
 * key's id, or a constant. Evaluated on the caller's thread, before any hop. Immutable.
 */
public abstract class IdentitySource {

    /** What the source needs to look at. */
    public static final class Request {
        final Headers headers;
        final String apiKeyId;

        public Request(Headers headers, String apiKeyId) {
            this.headers = headers;
            this.apiKeyId = apiKeyId;
        }
    }

    /** The value this source yields for a call, or null when it has none. */
    public abstract String valueFor(Request request);

    public static IdentitySource header(String name) {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                String v = r.headers.first(name);
                return v == null || v.isEmpty() ? null : v;
            }

            @Override
            public String toString() {
                return "header " + name;
            }
        };
    }

    public static IdentitySource mdc(String key) {
        return new MdcSource(key);
    }

    public static IdentitySource systemProperty(String name) {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                String v = System.getProperty(name);
                return v == null || v.isEmpty() ? null : v;
            }

            @Override
            public String toString() {
                return "system property " + name;
            }
        };
    }

    /**
     * The value a rule reads from the calling thread's name (config's {@code threadName} pattern
     * decides which part).
     */
    public static IdentitySource threadName(Function<String, String> valueOfThreadName, String description) {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                String v = valueOfThreadName.apply(Thread.currentThread().getName());
                return v == null || v.isEmpty() ? null : v;
            }

            @Override
            public String toString() {
                return "thread name " + description;
            }
        };
    }

    /**
     * The value of the innermost frame on the calling stack whose class the rule maps (config's
     * {@code callingPackage} prefixes decide).
     */
    public static IdentitySource callingPackage(Function<String, String> valueOfClass, String description) {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                Optional<String> found = StackWalker.getInstance()
                        .walk(frames -> frames.map(f -> valueOfClass.apply(f.getClassName()))
                                .filter(v -> v != null)
                                .findFirst());
                return found.orElse(null);
            }

            @Override
            public String toString() {
                return "calling package " + description;
            }
        };
    }

    /** The short hash of the request's API key. */
    public static IdentitySource apiKeyId() {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                return r.apiKeyId;
            }

            @Override
            public String toString() {
                return "api key id";
            }
        };
    }

    public static IdentitySource constant(String value) {
        return new IdentitySource() {
            @Override
            public String valueFor(Request r) {
                return value;
            }

            @Override
            public String toString() {
                return "default " + value;
            }
        };
    }

    /**
     * Reads the application's own SLF4J MDC (the agent's SLF4J is relocated and is not it),
     * reflectively through the calling thread's context class loader; absent SLF4J yields nothing.
     */
    private static final class MdcSource extends IdentitySource {
        private static final Cache<ClassLoader, Optional<Method>> MDC_GET =
                Caches.builder().weakKeys().maximumSize(1_000).build();
        private final String key;

        MdcSource(String key) {
            this.key = key;
        }

        @Override
        public String valueFor(Request r) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader == null) {
                loader = ClassLoader.getSystemClassLoader();
            }
            Optional<Method> get = MDC_GET.get(loader, MdcSource::findMdcGet);
            if (get.isEmpty()) {
                return null;
            }
            try {
                Object v = get.get().invoke(null, key);
                return v == null || v.toString().isEmpty() ? null : v.toString();
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        private static Optional<Method> findMdcGet(ClassLoader loader) {
            // the name is assembled so that relocation of the agent's own SLF4J leaves it alone
            String mdcClass = String.join(".", "org", "slf4j", "MDC");
            try {
                return Optional.of(Class.forName(mdcClass, false, loader).getMethod("get", String.class));
            } catch (ReflectiveOperationException | LinkageError e) {
                return Optional.empty();
            }
        }

        @Override
        public String toString() {
            return "mdc " + key;
        }
    }
}
