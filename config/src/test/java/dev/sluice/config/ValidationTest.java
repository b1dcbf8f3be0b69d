package dev.sluice.config;

import static dev.sluice.config.Fixtures.failure;
import static dev.sluice.config.Fixtures.problems;
import static dev.sluice.config.Fixtures.write;
import static dev.sluice.config.Fixtures.yamlProblems;
import static dev.sluice.config.Fixtures.yamlSources;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of mistake is reported with its path, value, reason and line: the exact text users read. */
class ValidationTest {
    @TempDir
    Path dir;

    @Test
    void outOfRangeValuesSayWhatIsAllowed() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: openai",
                        "    kind: openai",
                        "  - name: anthropic",
                        "    kind: anthropic",
                        "    limits:",
                        "      - dimension: requests",
                        "        capacity: -5",
                        "        window: 1m",
                        "store:",
                        "  leaseChunk: 0.7",
                        "estimation:",
                        "  outputPercentile: 0.3",
                        "  correctionMin: 0",
                        "retry:",
                        "  maxAttempts: 0",
                        "  baseBackoff: 2s",
                        "  maxBackoff: 1s"))
                .containsExactly(
                        "providers[1].limits[0].capacity: -5 is not allowed, must be > 0 (sluice.yaml line 8)",
                        "store.leaseChunk: 0.7 is not allowed, must be between 0 and 0.5 (sluice.yaml line 11)",
                        "estimation.outputPercentile: 0.3 is not allowed, must be between 0.5 and 1 (sluice.yaml line 13)",
                        "estimation.correctionMin: 0 is not allowed, must be > 0 and <= 1 (sluice.yaml line 14)",
                        "retry.maxAttempts: 0 is not allowed, must be >= 1 (sluice.yaml line 16)",
                        "retry.maxBackoff: 1s is not allowed, must be >= baseBackoff (2s) (sluice.yaml line 18)");
    }

    @Test
    void unknownKeysSuggestTheKeyMeantWhenClose() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "tenants:",
                        "  - name: search",
                        "    wieght: 3",
                        "retry:",
                        "  max_attempts: 2",
                        "  jitter: 0.1",
                        "modes: observe"))
                .containsExactly(
                        "tenants[0].wieght: unknown key, did you mean weight? (sluice.yaml line 3)",
                        "retry.max_attempts: unknown key, did you mean maxAttempts? (sluice.yaml line 5)",
                        "retry.jitter: unknown key; keys allowed here are maxAttempts, budgetRatio, budgetFloorPerSecond,"
                                + " budgetWindow, baseBackoff, maxBackoff, hintJitter, maxHintWait (sluice.yaml line 6)",
                        "modes: unknown key, did you mean mode? (sluice.yaml line 7)");
    }

    @Test
    void wrongTypesAreNamedWithTheValueAsWritten() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "adoptHeaderLimits: yes",
                        "jmx:",
                        "  enabled: \"true\"",
                        "retry:",
                        "  maxAttempts: \"3\"",
                        "  budgetRatio: lots",
                        "  hintJitter: [0.1]",
                        "estimation:",
                        "  tokensPerMessage: 2.5",
                        "  learn: 1",
                        "leaseTimeout: 10",
                        "providers: openai"))
                .containsExactly(
                        "adoptHeaderLimits: expected true or false, got yes (sluice.yaml line 1)",
                        "jmx.enabled: \"true\" is quoted; write true or false without quotes (sluice.yaml line 3)",
                        "retry.maxAttempts: \"3\" is quoted; write numbers without quotes (sluice.yaml line 5)",
                        "retry.budgetRatio: expected a number, got \"lots\" (sluice.yaml line 6)",
                        "retry.hintJitter: expected a number, got a list (sluice.yaml line 7)",
                        "estimation.tokensPerMessage: 2.5 is not a whole number (sluice.yaml line 9)",
                        "estimation.learn: expected true or false, got 1 (sluice.yaml line 10)",
                        "leaseTimeout: 10 has no unit; write e.g. 10s or 10ms (sluice.yaml line 11)",
                        "providers: expected a list, got \"openai\" (sluice.yaml line 12)");
    }

    @Test
    void invalidEnumValuesListTheAllowedOnes() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "mode: enforcing",
                        "classScheduling: fair",
                        "limits:",
                        "  - dimension: tokens",
                        "    capacity: 5",
                        "    window: 1m"))
                .containsExactly(
                        "mode: \"enforcing\" is not allowed, must be one of: enforce, observe, off; did you mean enforce?"
                                + " (sluice.yaml line 1)",
                        "classScheduling: \"fair\" is not allowed, must be one of: strict, weighted (sluice.yaml line 2)",
                        "limits[0].dimension: \"tokens\" is not allowed, must be one of: requests, input_tokens,"
                                + " output_tokens, total_tokens, concurrency, spend (sluice.yaml line 4)");
    }

    @Test
    void yamlBooleansLikeOffStillWorkAsEnumValues() throws Exception {
        assertThat(Fixtures.loadYaml(dir, "mode: off").mode()).isEqualTo(Mode.OFF);
    }

    @Test
    void duplicateNamesAndIdsPointAtTheSecondOne() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: openai",
                        "    kind: openai",
                        "    limits:",
                        "      - id: tpm",
                        "        dimension: total_tokens",
                        "        capacity: 1000",
                        "        window: 1m",
                        "  - name: openai",
                        "    kind: openai-compatible",
                        "    match: {hosts: [llm.local]}",
                        "limits:",
                        "  - id: tpm",
                        "    dimension: total_tokens",
                        "    capacity: 10",
                        "    window: 1m",
                        "  - dimension: spend",
                        "    capacity: 1",
                        "    window: 1d",
                        "  - dimension: spend",
                        "    capacity: 2",
                        "    window: 24h",
                        "tenants:",
                        "  - name: a",
                        "  - name: a",
                        "trafficClasses:",
                        "  - name: fast",
                        "  - name: fast"))
                .containsExactly(
                        "providers[1].name: \"openai\" is already the name of providers[0] (sluice.yaml line 9)",
                        "limits[0].id: \"tpm\" is already the id of providers[0].limits[0] (sluice.yaml line 13)",
                        "limits[2].id: \"organization.spend.1d\" is already the id of limits[1] (ids are derived from"
                                + " provider, level, dimension and window); give one of them an explicit id"
                                + " (sluice.yaml line 20)",
                        "tenants[1].name: \"a\" is already the name of tenants[0] (sluice.yaml line 25)",
                        "trafficClasses[1].name: \"fast\" is already the name of trafficClasses[0] (sluice.yaml line 28)");
    }

    @Test
    void aLimitsProviderMustBeDeclared() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: openai-prod",
                        "    kind: openai",
                        "limits:",
                        "  - dimension: spend",
                        "    capacity: 5",
                        "    window: 1d",
                        "    provider: opnai-prod",
                        "  - dimension: spend",
                        "    capacity: 5",
                        "    window: 1h",
                        "    provider: bedrock"))
                .containsExactly(
                        "limits[0].provider: \"opnai-prod\" names no declared provider, did you mean openai-prod?"
                                + " (sluice.yaml line 8)",
                        "limits[1].provider: \"bedrock\" names no declared provider (declared: openai-prod)"
                                + " (sluice.yaml line 12)");
    }

    @Test
    void windowRulesDependOnDimensionAndAlgorithm() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "limits:",
                        "  - dimension: concurrency",
                        "    capacity: 8",
                        "    window: 1m",
                        "  - dimension: requests",
                        "    capacity: 10",
                        "  - dimension: requests",
                        "    capacity: 10",
                        "    window: 1m",
                        "    resetAt: \"06:00\"",
                        "    zone: UTC",
                        "  - dimension: spend",
                        "    capacity: 10",
                        "    window: 12h",
                        "    algorithm: daily_reset",
                        "  - dimension: concurrency",
                        "    capacity: 2",
                        "    level: api_key",
                        "    algorithm: fixed_window"))
                .containsExactly(
                        "limits[0].window: not allowed for concurrency: a concurrency limit counts calls in flight and"
                                + " has no window (sluice.yaml line 4)",
                        "limits[1].window: required but missing for dimension requests (sluice.yaml line 5)",
                        "limits[2].resetAt: only allowed with a period or algorithm daily_reset, this limit uses"
                                + " token_bucket"
                                + " (sluice.yaml line 10)",
                        "limits[2].zone: only allowed with a period or algorithm daily_reset, this limit uses"
                                + " token_bucket"
                                + " (sluice.yaml line 11)",
                        "limits[3].window: 12h is not allowed, must be 1d with daily_reset (it resets once a day at"
                                + " resetAt) (sluice.yaml line 14)",
                        "limits[4].algorithm: fixed_window does not apply to concurrency, which has no window"
                                + " (sluice.yaml line 19)");
    }

    @Test
    void budgetsNameWhatIsWrongWithTheirAmountPeriodAndWarningShare() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "limits:",
                        "  - dimension: spend",
                        "    amount: 25",
                        "    capacity: 25000000",
                        "    period: month",
                        "  - dimension: requests",
                        "    amount: 5",
                        "    period: day",
                        "  - dimension: spend",
                        "    amount: -3",
                        "    period: fortnight",
                        "  - dimension: spend",
                        "    amount: 10",
                        "    period: week",
                        "    window: 7d",
                        "    warnAt: 1.5",
                        "  - dimension: spend",
                        "    period: day",
                        "  - dimension: requests",
                        "    capacity: 10",
                        "    window: 1m",
                        "    warnAt: 0.5"))
                .containsExactly(
                        "limits[0].amount: give amount or capacity, not both (capacity is in micro-units)"
                                + " (sluice.yaml line 3)",
                        "limits[1].amount: only allowed for dimension spend, use capacity for requests"
                                + " (sluice.yaml line 7)",
                        // with no valid period, the limit is read as a rolling one without its window
                        "limits[2].window: required but missing for dimension spend (sluice.yaml line 9)",
                        "limits[2].amount: -3 is not allowed, must be > 0 (sluice.yaml line 10)",
                        "limits[2].period: \"fortnight\" is not allowed, must be one of: hour, day, week, month"
                                + " (sluice.yaml line 11)",
                        "limits[3].window: give window (a rolling window) or period (a calendar period), not both"
                                + " (sluice.yaml line 15)",
                        "limits[3].warnAt: 1.5 is not allowed, must be between 0 (excluded) and 1 (sluice.yaml line 16)",
                        "limits[4].amount: required but missing (sluice.yaml line 17)",
                        "limits[5].warnAt: only allowed for dimension spend (sluice.yaml line 22)");
    }

    @Test
    void badTimesAndZonesAreExplained() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "limits:",
                        "  - dimension: spend",
                        "    capacity: 10",
                        "    algorithm: daily_reset",
                        "    resetAt: \"24:00\"",
                        "    zone: America/LosAngeles"))
                .containsExactly(
                        "limits[0].resetAt: \"24:00\" is not a time of day; write HH:mm, e.g. \"00:00\" (sluice.yaml line 5)",
                        "limits[0].zone: \"America/LosAngeles\" is not a time zone, did you mean America/Los_Angeles?"
                                + " (sluice.yaml line 6)");
    }

    @Test
    void guaranteedSharesMustFitInTheWhole() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "tenants:",
                        "  - name: a",
                        "    guaranteedShare: 0.5",
                        "  - name: b",
                        "    guaranteedShare: 0.4",
                        "  - name: c",
                        "    guaranteedShare: 0.3",
                        "  - name: d",
                        "    guaranteedShare: 1",
                        "    weight: 0"))
                .containsExactly(
                        "tenants: guaranteed shares add up to 1.2, must be <= 1 (sluice.yaml line 1)",
                        "tenants[3].guaranteedShare: 1 is not allowed, must be >= 0 and < 1 (sluice.yaml line 9)",
                        "tenants[3].weight: 0 is not allowed, must be > 0 (sluice.yaml line 10)");
    }

    @Test
    void identityRulesAreCheckedOneByOne() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "identity:",
                        "  tenant:",
                        "    - threadName: \"^tenant-(\"",
                        "    - header: X Tenant",
                        "    - hedaer: X-Tenant",
                        "    - {header: X-A, mdc: a}",
                        "    - apiKeyId: false",
                        "    - callingPackage: {com.acme: search, 9bad: x}",
                        "  trafficClass:",
                        "    - default: bach"))
                .containsExactly(
                        "identity.tenant[0].threadName: \"^tenant-(\" is not a valid regular expression: Unclosed group"
                                + " near index 9 (sluice.yaml line 3)",
                        "identity.tenant[1].header: \"X Tenant\" is not a valid header name (sluice.yaml line 4)",
                        "identity.tenant[2].hedaer: unknown key, did you mean header? (sluice.yaml line 5)",
                        "identity.tenant[3]: a rule has exactly one key (header, mdc, systemProperty, threadName,"
                                + " callingPackage, apiKeyId, default), found header, mdc (sluice.yaml line 6)",
                        "identity.tenant[4].apiKeyId: must be true; remove the rule to stop using the API key id"
                                + " (sluice.yaml line 7)",
                        "identity.tenant[5].callingPackage.9bad: \"9bad\" is not a package name (sluice.yaml line 8)",
                        "identity.trafficClass[0].default: \"bach\" names no traffic class, did you mean batch?"
                                + " (sluice.yaml line 10)");
    }

    @Test
    void providersWithoutAPublicHostNeedAMatch() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: vllm",
                        "    kind: openai-compatible",
                        "  - name: gw",
                        "    kind: fixed-window-gateway",
                        "    match: {}",
                        "  - name: proxy",
                        "    kind: openai-compatible",
                        "    match:",
                        "      hosts: [\"https://proxy.local\"]",
                        "      urls: [proxy.local/v1]",
                        "  - name: Bad_Name",
                        "    kind: openai"))
                .containsExactly(
                        "providers[0].match: required but missing for kind openai-compatible (it has no public host to"
                                + " recognise it by) (sluice.yaml line 2)",
                        "providers[1].match: needs at least one entry in hosts or urls (sluice.yaml line 6)",
                        "providers[2].match.hosts[0]: \"https://proxy.local\" is not a host name; hosts match any scheme"
                                + " and port, put URL prefixes under urls (sluice.yaml line 10)",
                        "providers[2].match.urls[0]: \"proxy.local/v1\" is not an absolute http or https URL"
                                + " (sluice.yaml line 11)",
                        "providers[3].name: \"Bad_Name\" is not a valid name, use lower case letters, digits and _ . -"
                                + " (starting with a letter or digit) (sluice.yaml line 12)");
    }

    @Test
    void adapterOptionsAreCheckedAgainstTheKindThatReadsThem() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: groq",
                        "    kind: openai-compatible",
                        "    match: {hosts: [api.groq.com]}",
                        "    options:",
                        "      requestWindow: 1d",
                        "      tokensWindow: 60",
                        "      truesUpTokens: sometimes",
                        "  - name: vllm",
                        "    kind: openai-compatible",
                        "    match: {hosts: [vllm.internal]}",
                        "    options: {requestsWindow: 0s, burst: 3}",
                        "  - name: anthropic",
                        "    kind: anthropic",
                        "    options: {requestsWindow: 1m}"))
                .containsExactly(
                        "providers[0].options.requestWindow: unknown option, did you mean requestsWindow?"
                                + " (sluice.yaml line 6)",
                        "providers[0].options.tokensWindow: \"60\" has no unit; write e.g. 60s or 60ms (sluice.yaml line 7)",
                        "providers[0].options.truesUpTokens: expected true or false, got \"sometimes\" (sluice.yaml line 8)",
                        "providers[1].options.requestsWindow: 0s is not allowed, must be > 0 (sluice.yaml line 12)",
                        "providers[1].options.burst: unknown option; options of kind openai-compatible are requestsWindow,"
                                + " tokensWindow, truesUpTokens (sluice.yaml line 12)",
                        "providers[2].options: kind anthropic takes no options (its adapter knows its provider); only"
                                + " openai-compatible does (sluice.yaml line 15)");
    }

    @Test
    void adapterOptionsReachTheModelInCanonicalForm() throws Exception {
        SluiceConfig c = Fixtures.loadYaml(
                dir,
                "providers:",
                "  - name: groq",
                "    kind: openai-compatible",
                "    match: {urls: [\"https://api.groq.com/openai/v1/\"]}",
                "    options:",
                "      requestsWindow: 24h",
                "      tokensWindow: 1.5m",
                "      truesUpTokens: False");
        assertThat(c.provider("groq").orElseThrow().options())
                .containsExactly(
                        java.util.Map.entry("requestsWindow", "1d"),
                        java.util.Map.entry("tokensWindow", "90s"),
                        java.util.Map.entry("truesUpTokens", "false"));
        assertThat(Fixtures.loadYaml(dir, "providers: [{name: openai, kind: openai}]")
                        .providers()
                        .get(0)
                        .options())
                .isEmpty();
    }

    @Test
    void twoProvidersCannotClaimTheSameHost() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: openai-a",
                        "    kind: openai",
                        "  - name: openai-b",
                        "    kind: openai",
                        "  - name: gw",
                        "    kind: openai-compatible",
                        "    match: {hosts: [api.openai.com]}"))
                .containsExactly(
                        "providers[1].match: required here: providers[0] (openai-a) already matches api.openai.com;"
                                + " a call can belong to one provider only (sluice.yaml line 4)",
                        "providers[2].match: \"api.openai.com\" is also matched by providers[0] (openai-a); a call can"
                                + " belong to one provider only (sluice.yaml line 8)");
    }

    @Test
    void keysThatDoNotBelongWhereTheyAreSaySo() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - name: openai",
                        "    kind: openai",
                        "    limits:",
                        "      - dimension: requests",
                        "        capacity: 5",
                        "        window: 1s",
                        "        provider: openai",
                        "        shared: false",
                        "tenants:",
                        "  - name: t",
                        "    limits:",
                        "      - dimension: requests",
                        "        capacity: 5",
                        "        window: 1s",
                        "        level: team"))
                .containsExactly(
                        "providers[0].limits[0].provider: not allowed here: a provider's own limits always count that"
                                + " provider's calls (sluice.yaml line 8)",
                        "providers[0].limits[0].shared: not allowed here: a provider's own limits are always shared"
                                + " (sluice.yaml line 9)",
                        "tenants[0].limits[0].level: not allowed here: a tenant's limits are at level tenant, for that"
                                + " tenant (sluice.yaml line 16)");
    }

    @Test
    void weightedSchedulingNeedsPositivePriorities() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "classScheduling: weighted",
                        "trafficClasses:",
                        "  - name: background",
                        "    priority: 0",
                        "    maxWait: 0s",
                        "    maxQueueDepth: 0"))
                .containsExactly(
                        "trafficClasses[0].priority: 0 is not allowed, must be >= 1 with classScheduling weighted (it is"
                                + " the class's relative weight) (sluice.yaml line 4)",
                        "trafficClasses[0].maxWait: 0s is not allowed, must be > 0 (sluice.yaml line 5)",
                        "trafficClasses[0].maxQueueDepth: 0 is not allowed, must be >= 1 (sluice.yaml line 6)");
    }

    @Test
    void missingRequiredValuesPointAtTheirEntry() throws Exception {
        assertThat(yamlProblems(
                        dir,
                        "providers:",
                        "  - kind: openai",
                        "limits:",
                        "  - window: 1m",
                        "tenants:",
                        "  - weight: 2",
                        "  - just-a-name"))
                .containsExactly(
                        "providers[0].name: required but missing (sluice.yaml line 2)",
                        "limits[0].dimension: required but missing (sluice.yaml line 4)",
                        "limits[0].capacity: required but missing (sluice.yaml line 4)",
                        "tenants[0].name: required but missing (sluice.yaml line 6)",
                        "tenants[1]: expected a mapping (one tenant), got \"just-a-name\" (sluice.yaml line 7)");
    }

    @Test
    void yamlSyntaxErrorsGiveTheirLine() throws Exception {
        assertThat(yamlProblems(dir, "mode: enforce", "retry:", "  maxAttempts: 3", "   baseBackoff: 1s"))
                .containsExactly("YAML syntax error: mapping values are not allowed here (sluice.yaml line 4)");
        assertThat(yamlProblems(dir, "mode: enforce", "retry:", "\tmaxAttempts: 3"))
                .singleElement()
                .asString()
                .startsWith("YAML syntax error: found character '\\t(TAB)' that cannot start any token.")
                .endsWith("(sluice.yaml line 3)");
    }

    @Test
    void duplicateKeysAreErrorsNotSilentOverwrites() throws Exception {
        assertThat(yamlProblems(dir, "retry:", "  maxAttempts: 3", "  maxAttempts: 4", "mode: fast"))
                .containsExactly(
                        "retry.maxAttempts: duplicate key, first set at line 2 (sluice.yaml line 3)",
                        "mode: \"fast\" is not allowed, must be one of: enforce, observe, off (sluice.yaml line 4)");
    }

    @Test
    void theTopLevelMustBeAMapping() throws Exception {
        assertThat(yamlProblems(dir, "- mode: enforce"))
                .containsExactly("the top level must be a mapping of settings, not a list (sluice.yaml line 1)");
    }

    @Test
    void overridesReportTheirSourceInsteadOfALine() throws Exception {
        assertThat(problems(ConfigSources.builder()
                        .envVariable("SLUICE_LOG_LEVEL", "verbose")
                        .systemProperty("sluice.mode", "fast")
                        .systemProperty("sluice.store.timeout", "soon")
                        .agentArgs("retry.maxAttempts=two")
                        .build()))
                .containsExactly(
                        "mode: \"fast\" is not allowed, must be one of: enforce, observe, off (-Dsluice.mode)",
                        "logLevel: \"verbose\" is not allowed, must be one of: error, warn, info, debug, trace (SLUICE_LOG_LEVEL)",
                        "store.timeout: \"soon\" is not a duration; write e.g. 500ms, 10s, 1.5m, 1h, 1d or PT1M"
                                + " (-Dsluice.store.timeout)",
                        "retry.maxAttempts: expected a whole number, got \"two\" (agent argument)");
    }

    @Test
    void unknownOverridesSuggestTheSettingMeant() throws Exception {
        assertThat(problems(ConfigSources.builder()
                        .systemProperty("sluice.retry.maxAtempts", "2")
                        .envVariable("SLUICE_ESTIMATION_LAERN", "false")
                        .agentArgs("confg=/etc/sluice.yaml,providers[0].name=x")
                        .build()))
                .containsExactly(
                        "SLUICE_ESTIMATION_LAERN: unknown setting, did you mean estimation.learn?",
                        "-Dsluice.retry.maxAtempts: unknown setting, did you mean retry.maxAttempts?",
                        "confg: unknown setting, did you mean config? (agent argument)",
                        "providers[0].name: unknown setting; settings that can be given here are config, mode, failMode,"
                                + " logLevel, adoptHeaderLimits, leaseTimeout, coldStartWait, stateFile, stateSaveInterval, jmx.enabled, metrics, metrics.port,"
                                + " metrics.bind, metrics.path, metrics.maxTenants, metrics.tokenDetail, metrics.openTelemetry, store, store.url, store.instances,"
                                + " store.timeout, store.leaseChunk, classScheduling, retry.*, estimation.*, currency, pricesFile (agent argument)");
    }

    @Test
    void aMissingFileNamesThePathAndWhoNamedIt() throws Exception {
        Path missing = dir.resolve("nope.yaml");
        assertThat(problems(ConfigSources.builder()
                        .systemProperty("sluice.config", missing.toString())
                        .build()))
                .containsExactly("config: cannot read " + missing + ": no such file (-Dsluice.config)");
        assertThat(problems(ConfigSources.builder()
                        .envVariable("SLUICE_CONFIG", dir.toString() + "/x.yml")
                        .build()))
                .containsExactly("config: cannot read " + dir + "/x.yml: no such file (SLUICE_CONFIG)");
        Path conf = write(dir, "sluice.conf", "mode: off\n");
        assertThat(problems(ConfigSources.builder().agentArgs("config=" + conf).build()))
                .containsExactly(
                        "config: " + conf + " has an unknown extension, use .yaml, .yml or .json (agent argument)");
        assertThat(problems(ConfigSources.builder()
                        .agentArgs("config=" + dir.resolve("d.yaml"))
                        .build()))
                .containsExactly("config: cannot read " + dir.resolve("d.yaml") + ": no such file (agent argument)");
    }

    @Test
    void everyProblemIsReportedAtOnceWithItsParts() throws Exception {
        ConfigException e = failure(yamlSources(
                        dir,
                        "mode: fast",
                        "tenants:",
                        "  - name: a",
                        "    wieght: 3",
                        "limits:",
                        "  - dimension: requests",
                        "    capacity: 0",
                        "    window: 1m")
                .systemProperty("sluice.retry.maxAttempts", "0")
                .build());
        assertThat(e.getMessage())
                .isEqualTo(String.join(
                        "\n",
                        "retry.maxAttempts: 0 is not allowed, must be >= 1 (-Dsluice.retry.maxAttempts)",
                        "mode: \"fast\" is not allowed, must be one of: enforce, observe, off (sluice.yaml line 1)",
                        "tenants[0].wieght: unknown key, did you mean weight? (sluice.yaml line 4)",
                        "limits[0].capacity: 0 is not allowed, must be > 0 (sluice.yaml line 7)"));
        List<ConfigProblem> problems = e.problems();
        assertThat(problems).hasSize(4);
        ConfigProblem capacity = problems.get(3);
        assertThat(capacity.path()).isEqualTo("limits[0].capacity");
        assertThat(capacity.value()).isEqualTo("0");
        assertThat(capacity.message()).isEqualTo("0 is not allowed, must be > 0");
        assertThat(capacity.source()).isEqualTo(dir.resolve("sluice.yaml").toString());
        assertThat(capacity.line()).isEqualTo(7);
        ConfigProblem mode = problems.get(1);
        assertThat(mode.value()).isEqualTo("\"fast\"");
        assertThat(mode.column()).isEqualTo(7);
        ConfigProblem override = problems.get(0);
        assertThat(override.source()).isEqualTo("-Dsluice.retry.maxAttempts");
        assertThat(override.line()).isZero();
        assertThat(e.problems()).isUnmodifiable();
    }

    @Test
    void aValidOverrideDoesNotRescueAnInvalidFile() throws Exception {
        assertThat(problems(yamlSources(dir, "mode: fast")
                        .systemProperty("sluice.mode", "observe")
                        .systemProperty("sluice.retry.maxAttempts", "x")
                        .build()))
                .containsExactly("retry.maxAttempts: expected a whole number, got \"x\" (-Dsluice.retry.maxAttempts)");
    }
}
