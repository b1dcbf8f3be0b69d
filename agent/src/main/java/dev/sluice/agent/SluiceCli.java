package dev.sluice.agent;

import java.io.PrintStream;

/**
 * {@code java -jar sluice-agent.jar <command>}: the agent jar's command line: {@code version},
 * {@code status [pid]} and {@code limits [pid]} (see {@link StatusCommand}), {@code attach <pid>
 * [config]} (see {@link AttachCommand}).
 */
public final class SluiceCli {

    private SluiceCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        switch (command) {
            case "version":
            case "--version":
                out.println("sluice " + AgentVersion.get());
                return 0;
            case "status":
            case "limits":
                return StatusCommand.run(command, args, out, err);
            case "attach":
                return AttachCommand.run(args, out, err);
            case "help":
            case "--help":
            case "-h":
                usage(out);
                return 0;
            default:
                err.println("sluice: unknown command '" + command + "'");
                usage(err);
                return 2;
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar sluice-agent.jar <command>");
        out.println("  version        print the agent's version");
        out.println("  status [pid]   live view of a local JVM running the agent: limits, tenants, queues,"
                + " providers; without a pid, list those JVMs");
        out.println("  limits [pid]   the limits table of a local JVM running the agent, from its live governor");
        out.println("  attach <pid> [config-file | agent-options]");
        out.println("                 install the agent into a running JVM (clients it already built are governed)");
        out.println("as an agent: java -javaagent:sluice-agent.jar[=config=FILE,log=LEVEL] -jar app.jar");
    }
}
