package dev.sluice.it.apache;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@link ApacheHttpApp} with HttpClient 5 from a directory of jars (another version than the
 * test class path's), in a child {@link URLClassLoader} (parent: the platform loader), as an
 * application server or a fat jar would: the hooked classes live in that loader, so Sluice must
 * define its helpers next to them there.
 *
 * <p>Arguments: jarDirectory, then {@link ApacheHttpApp}'s.
 */
public final class VersionedApp {

    private VersionedApp() {}

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        File[] jars = new File(args[0]).listFiles((dir, name) -> name.endsWith(".jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("no jars in " + args[0]);
        }
        for (File jar : jars) {
            urls.add(jar.toURI().toURL());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.matches(".*/http(client|core)5[^/]*\\.jar")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        URLClassLoader child = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        Class<?> app = child.loadClass(ApacheHttpApp.class.getName());
        Class<?> version = child.loadClass("org.apache.hc.client5.http.impl.classic.HttpClients");
        System.out.println("httpclient5 from "
                + version.getProtectionDomain().getCodeSource().getLocation() + " loader " + version.getClassLoader());
        app.getMethod("main", String[].class).invoke(null, (Object) rest);
    }
}
