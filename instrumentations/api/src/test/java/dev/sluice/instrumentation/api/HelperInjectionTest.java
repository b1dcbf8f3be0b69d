package dev.sluice.instrumentation.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.bootstrap.HttpTransport;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HelperInjectionTest {

    private static final String LIBRARY = "dev.sluice.instrumentation.api.fake.FakeLibrary";

    /** A library's own class loader: defines the fake library itself, delegates everything else. */
    static final class LibraryLoader extends URLClassLoader {
        LibraryLoader() {
            super(
                    new URL[] {
                        FakeModule.class.getProtectionDomain().getCodeSource().getLocation()
                    },
                    HelperInjectionTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.sluice.instrumentation.api.fake.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                return loaded != null ? loaded : findClass(name);
            }
        }
    }

    static final class FakeModule extends InstrumentationModule {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public List<String> hookedTypeNames() {
            return Collections.singletonList(LIBRARY);
        }

        @Override
        public void declareAdvice(AdviceSink sink) {
            sink.advise(net.bytebuddy.matcher.ElementMatchers.named("call"), "unused");
        }

        @Override
        public String helperPackage() {
            return "dev.sluice.instrumentation.api.fakehelper.";
        }

        @Override
        public String hookClassName() {
            return "dev.sluice.instrumentation.api.fakehelper.FakeHook";
        }
    }

    @BeforeAll
    static void install() {
        Bridge.install(new Governance() {
            @Override
            public boolean governs(String url) {
                return true;
            }

            @Override
            public CallOutcome execute(HttpTransport transport) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletableFuture<Object> executeAsync(HttpTransport transport) {
                throw new UnsupportedOperationException();
            }
        });
        Hooks.install(new HelperHookFactory(
                Collections.singletonList(new FakeModule()), HelperInjectionTest.class.getClassLoader(), null));
    }

    @AfterAll
    static void uninstall() {
        Hooks.install(null);
        Bridge.install(null);
    }

    @Test
    void eachLibraryCopyGetsItsOwnHelpersLinkedToIt() throws Exception {
        LibraryLoader first = new LibraryLoader();
        LibraryLoader second = new LibraryLoader();
        Object a = first.loadClass(LIBRARY).getConstructor().newInstance();
        Object b = second.loadClass(LIBRARY).getConstructor().newInstance();

        String hookA = (String) Hooks.enter(a.getClass(), 1, a, new Object[0]).response();
        String hookB = (String) Hooks.enter(b.getClass(), 1, b, new Object[0]).response();

        assertThat(hookA)
                .startsWith("helper in sluice-helpers[dev.sluice.instrumentation.api.fakehelper.] -> ")
                .endsWith(first.toString());
        assertThat(hookB).endsWith(second.toString());
        // the agent's own loader never defines a helper: the test loader's copy of FakeHook stays unused
        assertThat(Hooks.enter(a.getClass(), 1, a, new Object[0]).response()).isEqualTo(hookA);
    }

    @Test
    void aDroppedLibraryLoaderIsCollectedWithItsHelpers() throws Exception {
        WeakReference<ClassLoader> library = useAndDrop();
        for (int i = 0; i < 50 && library.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(library.get())
                .as("library class loader still reachable: a leak")
                .isNull();
    }

    private static WeakReference<ClassLoader> useAndDrop() throws Exception {
        LibraryLoader loader = new LibraryLoader();
        Object instance = loader.loadClass(LIBRARY).getConstructor().newInstance();
        assertThat(Hooks.enter(instance.getClass(), 1, instance, new Object[0]).response())
                .isNotNull();
        return new WeakReference<>(loader);
    }

    @Test
    void faultsAreCountedAndTheCallPassesThrough() throws Exception {
        long before = Bridge.hookFaults();
        Object instance =
                new LibraryLoader().loadClass(LIBRARY).getConstructor().newInstance();
        // a receiver of the wrong type makes the helper throw
        assertThat(Hooks.enter(instance.getClass(), 1, "not a library object", new Object[0]))
                .isNull();
        assertThat(Bridge.hookFaults()).isEqualTo(before + 1);
    }
}
