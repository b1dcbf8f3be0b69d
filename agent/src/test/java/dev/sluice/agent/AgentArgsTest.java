package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AgentArgsTest {

    @Test
    void readsCommaSeparatedOptionsInOrder() {
        AgentArgs args = AgentArgs.parse("config=/etc/sluice.yaml, log=debug ,warmup=false");
        assertThat(args.asMap())
                .containsExactly(
                        org.assertj.core.api.Assertions.entry("config", "/etc/sluice.yaml"),
                        org.assertj.core.api.Assertions.entry("log", "debug"),
                        org.assertj.core.api.Assertions.entry("warmup", "false"));
    }

    @Test
    void aBareKeyMeansTrueAndKeysIgnoreCase() {
        AgentArgs args = AgentArgs.parse("Observe,MODE=enforce");
        assertThat(args.get("observe")).isEqualTo("true");
        assertThat(args.get("mode")).isEqualTo("enforce");
    }

    @Test
    void noOptionsAtAll() {
        assertThat(AgentArgs.parse(null).asMap()).isEmpty();
        assertThat(AgentArgs.parse(" , ").asMap()).isEmpty();
    }

    @Test
    void valuesMayContainEqualsSigns() {
        assertThat(AgentArgs.parse("store=redis://h:6379/0?x=1").get("store")).isEqualTo("redis://h:6379/0?x=1");
    }
}
