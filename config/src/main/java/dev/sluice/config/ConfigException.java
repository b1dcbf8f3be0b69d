package dev.sluice.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a configuration cannot be loaded. It carries every problem found, not just the
 * first, so one round of fixes is enough; {@link #getMessage()} lists them one per line. When
 * it is thrown there is no configuration at all: nothing is half-applied.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    ConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in file order (settings from overrides and unknown overrides first). */
    public List<ConfigProblem> problems() {
        return problems;
    }
}
