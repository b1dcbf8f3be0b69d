package dev.sluice.agent;

/**
 * Defines one class from given bytes (verified, as every class outside the bootstrap loader is);
 * every other class comes from the tests' own loader.
 */
final class OneClassLoader extends ClassLoader {
    private final String name;
    private final byte[] bytes;

    OneClassLoader(String name, byte[] bytes) {
        super(OneClassLoader.class.getClassLoader());
        this.name = name;
        this.bytes = bytes;
    }

    @Override
    protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
        if (!className.equals(name)) {
            return super.loadClass(className, resolve);
        }
        synchronized (getClassLoadingLock(className)) {
            Class<?> loaded = findLoadedClass(className);
            return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
        }
    }
}
