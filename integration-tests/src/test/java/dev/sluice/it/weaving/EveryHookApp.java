package dev.sluice.it.weaving;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads and links hooked classes, one library version at a time, in a JVM running the agent, so
 * that each is woven and then verified as the JVM defines it.
 *
 * <p>Each argument is one set: {@code label#class,class...#jar:jar...#exclude}. The classes are
 * loaded (and initialized, which links, so verifies, them first) from a fresh {@link
 * URLClassLoader} (parent: the platform loader) over the set's jars followed by this JVM's class
 * path minus the entries matching {@code exclude} (the set's library in other versions); the set
 * {@code jdk} loads from the platform loader. Before each set it writes {@code WEAVE-SET label} to
 * standard error, where the agent logs each class it weaves; for each class it prints {@code
 * LINKED label class location}, {@code ABSENT label class} or {@code FAILED label class error}.
 * It starts once the agent's {@code sluice-warmup} thread has ended: the JDK classes loaded before
 * the agent (not linked yet) are retransformed by then, so linking them verifies the woven code.
 */
public final class EveryHookApp {

    private EveryHookApp() {}

    public static void main(String[] args) throws Exception {
        awaitWarmUp();
        for (String set : args) {
            String[] parts = set.split("#", -1);
            String label = parts[0];
            System.err.println("WEAVE-SET " + label);
            ClassLoader loader = label.equals("jdk")
                    ? ClassLoader.getPlatformClassLoader()
                    : new URLClassLoader(urls(parts[2], parts[3]), ClassLoader.getPlatformClassLoader());
            for (String name : parts[1].split(",")) {
                System.out.println(link(label, name, loader));
            }
        }
        System.out.println("DONE");
    }

    private static String link(String label, String name, ClassLoader loader) {
        try {
            Class<?> type = Class.forName(name, true, loader);
            return "LINKED " + label + " " + name + " " + where(type);
        } catch (ClassNotFoundException absent) {
            return "ABSENT " + label + " " + name;
        } catch (ExceptionInInitializerError initializerFailed) {
            // initialization comes after linking: the class was verified
            return "LINKED " + label + " " + name + " (its initializer failed: " + initializerFailed.getCause() + ")";
        } catch (LinkageError failed) {
            return "FAILED " + label + " " + name + " " + failed;
        }
    }

    private static String where(Class<?> type) {
        if (type.getClassLoader() == null || type.getProtectionDomain().getCodeSource() == null) {
            return "jdk";
        }
        return new File(type.getProtectionDomain().getCodeSource().getLocation().getPath()).getName();
    }

    private static URL[] urls(String jars, String exclude) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String jar : jars.split(File.pathSeparator)) {
            if (!jar.isEmpty()) {
                urls.add(new File(jar).toURI().toURL());
            }
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (exclude.isEmpty() || !entry.matches(exclude)) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static void awaitWarmUp() throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean alive = false;
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                alive |= thread.getName().equals("sluice-warmup");
            }
            if (!alive) {
                return;
            }
            Thread.sleep(20);
        }
    }
}
