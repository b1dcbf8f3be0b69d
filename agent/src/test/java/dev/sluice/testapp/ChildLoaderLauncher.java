package dev.sluice.testapp;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs an application whose classes and libraries are only reachable through a child
 * {@code URLClassLoader} (parent: the platform loader), the way a servlet container or Spring
 * Boot's nested jars do: {@code ChildLoaderLauncher <path-list> <main-class> [args...]}.
 */
public final class ChildLoaderLauncher {

    private ChildLoaderLauncher() {}

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : args[0].split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        URLClassLoader child =
                new URLClassLoader("test-app", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        Class<?> main = Class.forName(args[1], true, child);
        main.getMethod("main", String[].class).invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
}
