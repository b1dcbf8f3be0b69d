package dev.sluice.testapp;

/** Does its work whatever happened to the agent: proves a failed start leaves the JVM running. */
public final class BrokenStartApp {

    private BrokenStartApp() {}

    public static void main(String[] args) {
        Report.put("app.ran", true);
        try {
            Class.forName("dev.sluice.bootstrap.Bridge");
            Report.put("app.bridge", "present");
        } catch (ClassNotFoundException e) {
            Report.put("app.bridge", "absent");
        }
    }
}
