package dev.sluice.instrumentation.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Defines one instrumentation's helper classes next to one copy of its library.
 *
 * <p>Its parent is the library's class loader, so helpers link against that exact copy of the
 * library (and, through it, the bootstrap bridge). Helper bytes are read from the agent jar,
 * where they are stored under a prefix ({@code sluice-helpers/<module>/...}) that no ordinary
 * class loader maps to a class name: the agent's own loader can never load a helper against the
 * wrong library. Classes of the helper package are defined here child-first; everything else is
 * delegated to the parent.
 *
 * <p>The only references to an instance are the classes it defined and the hook cached on the
 * library's hooked class: it lives and dies with the library's loader.
 */
public final class HelperClassLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private final String helperPackage;
    private final ClassLoader bytesLoader;
    private final String resourcePrefix;

    /**
     * @param libraryLoader the loader of the hooked library ({@code null}: bootstrap)
     * @param helperPackage package of the helpers, with trailing dot
     * @param bytesLoader where helper bytes are read from (the agent's loader)
     * @param resourcePrefix prefix of the helper resources in {@code bytesLoader}, e.g.
     *     {@code sluice-helpers/okhttp/}; empty when the helpers are ordinary class files
     */
    public HelperClassLoader(
            ClassLoader libraryLoader, String helperPackage, ClassLoader bytesLoader, String resourcePrefix) {
        super(libraryLoader);
        this.helperPackage = helperPackage;
        this.bytesLoader = bytesLoader;
        this.resourcePrefix = resourcePrefix;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(helperPackage)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                loaded = findClass(name);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        if (!name.startsWith(helperPackage)) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes = read(resourcePrefix + name.replace('.', '/') + ".class");
        if (bytes == null) {
            throw new ClassNotFoundException(name);
        }
        return defineClass(name, bytes, 0, bytes.length);
    }

    private byte[] read(String resource) {
        try (InputStream in = bytesLoader == null
                ? ClassLoader.getSystemResourceAsStream(resource)
                : bytesLoader.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) != -1; ) {
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "sluice-helpers[" + helperPackage + "] -> " + getParent();
    }
}
