package dev.sluice.it.retry;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@link SdkCallsApp} with its SDKs loaded by a child {@link URLClassLoader} (parent: the
 * platform loader), as an application server or a Spring Boot fat jar would: the hooked SDK
 * classes live in that loader, so the helpers must be defined next to them there.
 */
public final class ChildLoaderApp {

    private ChildLoaderApp() {}

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        URLClassLoader child = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        child.loadClass(SdkCallsApp.class.getName())
                .getMethod("main", String[].class)
                .invoke(null, (Object) args);
    }
}
