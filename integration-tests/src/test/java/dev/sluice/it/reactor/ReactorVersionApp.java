package dev.sluice.it.reactor;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@link ReactorNettyApp} (raw client only) with another Reactor Netty: a child
 * {@link URLClassLoader} (parent: the platform loader, as an application server or a fat jar
 * would) over the jars of the directory named by {@code -Dit.reactor.libs} and the test class path
 * minus its own Reactor, Netty and Spring. The hooked {@code HttpClientFinalizer} then lives in
 * that loader, so the helpers must be defined next to it there.
 */
public final class ReactorVersionApp {

    private ReactorVersionApp() {}

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        File[] jars = new File(System.getProperty("it.reactor.libs")).listFiles((d, n) -> n.endsWith(".jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("no jars in " + System.getProperty("it.reactor.libs"));
        }
        for (File jar : jars) {
            urls.add(jar.toURI().toURL());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String e = entry.replace('\\', '/');
            if (!e.contains("/io/netty/")
                    && !e.contains("/io/projectreactor/")
                    && !e.contains("/org/springframework/")
                    && !e.contains("/org/reactivestreams/")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        URLClassLoader child = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        String[] raw = java.util.Arrays.copyOf(args, 6);
        raw[5] = "raw";
        child.loadClass(ReactorNettyApp.class.getName())
                .getMethod("main", String[].class)
                .invoke(null, (Object) raw);
    }
}
