package dev.sluice.testapp;

import dev.sluice.bootstrap.Bridge;

/** Prints {@code RESULT key=value} lines the forked-JVM tests parse. */
final class Report {

    private Report() {}

    static void put(String key, Object value) {
        String text = String.valueOf(value).replace('\n', ' ').replace('\r', ' ');
        System.out.println("RESULT " + key + "=" + text);
    }

    static void seen(String scenario, ScriptedGovernance.Seen s) {
        if (s == null) {
            put(scenario + ".governed", false);
            return;
        }
        put(scenario + ".governed", true);
        put(scenario + ".library", s.library);
        put(scenario + ".attempts", s.attempts.get());
        put(scenario + ".observedBytes", s.bodyBytes.get());
        put(scenario + ".observedEnd", s.ended.get());
        put(scenario + ".observedFailure", s.failed.get());
        put(scenario + ".observedClose", s.closed.get());
        put(scenario + ".tenantSeenByGovernance", s.header("X-Sluice-Tenant"));
        put(scenario + ".requestBodySeen", s.requestBody == null ? -1 : s.requestBody.length);
        put(scenario + ".timeoutNanos", s.timeoutNanos);
        put(scenario + ".completionThread", s.completionThread);
        put(scenario + ".cancelledSeen", s.cancelledSeen);
    }

    static void environment(ScriptedGovernance governance) {
        put("env.bridgeLoader", String.valueOf(Bridge.class.getClassLoader()));
        put("env.hookFaults", Bridge.hookFaults());
        put("env.governanceFaults", governance.hookFaults.get());
        put("env.java", System.getProperty("java.specification.version"));
    }

    /** Polls until the condition holds or the deadline passes (observer events arrive asynchronously). */
    static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
