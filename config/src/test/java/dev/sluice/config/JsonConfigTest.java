package dev.sluice.config;

import static dev.sluice.config.Fixtures.problems;
import static dev.sluice.config.Fixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same schema in JSON, parsed with jackson-core. */
class JsonConfigTest {
    @TempDir
    Path dir;

    @Test
    void aJsonFileLoadsLikeYaml() throws Exception {
        Path f = write(
                dir,
                "sluice.json",
                String.join(
                        "\n",
                        "{",
                        "  \"mode\": \"observe\",",
                        "  \"store\": \"redis://redis:6379/1\",",
                        "  \"providers\": [",
                        "    {\"name\": \"anthropic\", \"kind\": \"anthropic\",",
                        "     \"limits\": [{\"dimension\": \"input_tokens\", \"capacity\": \"400k\", \"window\": \"1m\"}]}",
                        "  ],",
                        "  \"tenants\": [{\"name\": \"search\", \"weight\": 2.5, \"guaranteedShare\": 0.25}],",
                        "  \"retry\": {\"maxAttempts\": 2, \"baseBackoff\": \"1s\"},",
                        "  \"jmx\": {\"enabled\": false}",
                        "}"));
        SluiceConfig c = ConfigLoader.load(ConfigSources.builder().file(f).build());
        assertThat(c.mode()).isEqualTo(Mode.OBSERVE);
        assertThat(c.store().database()).isEqualTo(1);
        assertThat(c.limit("anthropic.input_tokens.1m").orElseThrow().capacity())
                .isEqualTo(400_000);
        assertThat(c.tenant("search").orElseThrow().weight()).isEqualTo(2.5);
        assertThat(c.retry().maxAttempts()).isEqualTo(2);
        assertThat(c.jmx().enabled()).isFalse();
    }

    @Test
    void jsonProblemsHaveLinesToo() throws Exception {
        Path f = write(
                dir,
                "sluice.json",
                String.join(
                        "\n",
                        "{",
                        "  \"retry\": {\"maxAttempts\": \"3\"},",
                        "  \"estimation\": {\"learn\": \"false\"}",
                        "}"));
        assertThat(problems(ConfigSources.builder().file(f).build()))
                .containsExactly(
                        "retry.maxAttempts: \"3\" is quoted; write numbers without quotes (sluice.json line 2)",
                        "estimation.learn: \"false\" is quoted; write true or false without quotes (sluice.json line 3)");
    }

    @Test
    void jsonSyntaxErrorsGiveTheirLine() throws Exception {
        Path f = write(dir, "sluice.json", String.join("\n", "{", "  \"mode\": \"observe\",", "  \"retry\": {,}", "}"));
        assertThat(problems(ConfigSources.builder().file(f).build()))
                .singleElement()
                .asString()
                .startsWith("JSON syntax error: Unexpected character (',' (code 44))")
                .endsWith("(sluice.json line 3)");
    }
}
