package dev.sluice.agent;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's own class loader: its classes ({@code dev.sluice.*}) straight from the agent jar,
 * everything else from the JDK (its parent is the platform loader; the bridge is in the bootstrap
 * loader).
 *
 * <p>The JVM puts the agent jar at the end of the application's class path, and the system class
 * loader looks a class up by asking the JDK's loaders first, then every entry of the class path
 * in order: for each of the ~650 classes a start-up loads, a look-up in each of the application's
 * jars, a file look-up and a {@code URL} in each class directory, before the agent jar. That walk,
 * and the JIT compiling the JDK's look-up code it makes hot, cost a one-call openai-java process
 * with 26 class path entries ~140 ms of CPU (docs/startup-figures.md). Here each class is one entry
 * read from one jar.
 *
 * <p>The jar also stays on the system class path (the JVM put it there); only {@link SluiceAgent},
 * {@link AgentLoader} and {@link AgentEntry} are loaded from there. The agent's classes never are:
 * none of the application's classes or helpers names them (helpers link to the bridge only).
 */
final class AgentLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private static final String OWN = "dev.sluice.";
    /** The one type the trampoline and the agent share (and its nested slot): the trampoline's copy. */
    private static final String SHARED = AgentEntry.class.getName();

    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;

    AgentLoader(CodeSource source) throws IOException {
        super("sluice", ClassLoader.getPlatformClassLoader());
        URL location = source.getLocation();
        try {
            this.jar = new JarFile(new java.io.File(location.toURI()), false);
        } catch (java.net.URISyntaxException e) {
            throw new IOException("agent jar at an unusable location: " + location, e);
        }
        this.jarUrl = "jar:" + location + "!/";
        this.domain = new ProtectionDomain(new CodeSource(location, (Certificate[]) null), null, this, null);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(SHARED)) {
            return AgentLoader.class.getClassLoader().loadClass(name);
        }
        if (name.startsWith(OWN)) {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = defineFromJar(name);
                }
                if (loaded != null) {
                    if (resolve) {
                        resolveClass(loaded);
                    }
                    return loaded;
                }
            }
        }
        return super.loadClass(name, resolve); // the JDK's, and the bridge (bootstrap)
    }

    /** The class from the agent jar, or null when the jar has no such class file. */
    private Class<?> defineFromJar(String name) throws ClassNotFoundException {
        JarEntry entry = jar.getJarEntry(name.replace('.', '/').concat(".class"));
        if (entry == null) {
            return null;
        }
        byte[] bytes;
        try (InputStream in = jar.getInputStream(entry)) {
            bytes = readClassFile(in, entry.getSize());
        } catch (IOException e) {
            throw new ClassNotFoundException(name + " could not be read from the agent jar", e);
        }
        return defineClass(name, bytes, 0, bytes.length, domain);
    }

    /**
     * Into an array of the entry's size when the jar gives it, as the JDK's own class path loader
     * reads: {@link InputStream#readAllBytes()} fills 8 KB chunks and copies them into a third
     * array, which for ~650 classes at start-up doubled the bytes allocated and zeroed.
     */
    private static byte[] readClassFile(InputStream in, long size) throws IOException {
        if (size < 0 || size > Integer.MAX_VALUE - 8) {
            return in.readAllBytes();
        }
        byte[] bytes = new byte[(int) size];
        int read = in.readNBytes(bytes, 0, bytes.length);
        if (read != bytes.length || in.read() != -1) {
            throw new IOException("the entry's size in the jar is " + size + ", its content is not");
        }
        return bytes;
    }

    /** The agent jar's resources without a URL round trip (helpers' bytes, the nested bridge jar, the price table). */
    @Override
    public InputStream getResourceAsStream(String name) {
        JarEntry entry = jar.getJarEntry(name);
        if (entry == null) {
            return super.getResourceAsStream(name);
        }
        try {
            return jar.getInputStream(entry);
        } catch (IOException e) {
            return null; // as ClassLoader answers a resource it cannot open
        }
    }

    @Override
    protected URL findResource(String name) {
        if (jar.getJarEntry(name) == null) {
            return null;
        }
        try {
            return new URL(jarUrl + name);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL found = findResource(name);
        return found == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singleton(found));
    }
}
