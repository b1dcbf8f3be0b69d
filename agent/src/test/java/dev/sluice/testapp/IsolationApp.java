package dev.sluice.testapp;

/**
 * Prints which of the agent's third-party libraries the application can see, and whether its
 * own copies (when on its class path) are the ones it gets and work, and which loader holds the
 * agent's classes.
 */
public final class IsolationApp {

    private IsolationApp() {}

    public static void main(String[] args) throws Exception {
        String[] probes = {
            "com.fasterxml.jackson.databind.ObjectMapper",
            "com.fasterxml.jackson.core.JsonFactory",
            "org.slf4j.LoggerFactory",
            "org.objectweb.asm.ClassReader",
            "net.bytebuddy.asm.Advice",
            "com.github.benmanes.caffeine.cache.Caffeine",
            "org.yaml.snakeyaml.Yaml",
            "dev.sluice.bootstrap.Bridge",
            "dev.sluice.instrumentation.okhttp.helper.OkHttpHook",
            "dev.sluice.instrumentation.jdkhttp.helper.JdkHttpHook"
        };
        for (String name : probes) {
            String where;
            try {
                Class<?> type = Class.forName(name);
                where = type.getClassLoader() == null
                        ? "bootstrap"
                        : String.valueOf(
                                type.getProtectionDomain().getCodeSource().getLocation());
            } catch (ClassNotFoundException e) {
                where = "absent";
            }
            Report.put("class." + name, where);
        }
        // what the bridge calls (the governor, or the one that waits for it): whose classes they are
        Object governance = Class.forName("dev.sluice.bootstrap.Bridge")
                .getMethod("governance")
                .invoke(null);
        ClassLoader loader = governance.getClass().getClassLoader();
        Report.put(
                "governance.loader",
                loader == ClassLoader.getSystemClassLoader() ? "system" : String.valueOf(loader.getName()));
        if (args.length > 0 && args[0].equals("use-own")) {
            Class<?> mapper = Class.forName("com.fasterxml.jackson.databind.ObjectMapper");
            Object instance = mapper.getConstructor().newInstance();
            Object json =
                    mapper.getMethod("writeValueAsString", Object.class).invoke(instance, java.util.Map.of("a", 1));
            Report.put("jackson.json", json);
            Class<?> factory = Class.forName("org.slf4j.LoggerFactory");
            Object loggerFactory = factory.getMethod("getILoggerFactory").invoke(null);
            Report.put("slf4j.factory", loggerFactory.getClass().getName());
            Object logger = factory.getMethod("getLogger", String.class).invoke(null, "app");
            logger.getClass().getMethod("info", String.class).invoke(logger, "app's own logger works");
        }
    }
}
