package dev.sluice.core.provider.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OpenAiOperationTest {

    @Test
    void aPathIsTheOperationWhoseTailFollowsThePrefixExactly() {
        for (OpenAiOperation op : OpenAiOperation.values()) {
            assertThat(OpenAiOperation.at("/v1/" + op.pathTail(), "/v1/")).isEqualTo(op);
            assertThat(OpenAiOperation.at("/v1/" + op.pathTail() + "/", "/v1/")).isEqualTo(op);
            assertThat(OpenAiOperation.at("/openai/deployments/gpt/" + op.pathTail(), "/openai/deployments/gpt/"))
                    .isEqualTo(op);
        }
        assertThat(OpenAiOperation.at("/v1/completions", "/v1/")).isEqualTo(OpenAiOperation.COMPLETIONS);
        String deployment = "/openai/deployments/gpt/";
        assertThat(OpenAiOperation.at(deployment + "embeddings", deployment.length()))
                .isEqualTo(OpenAiOperation.EMBEDDINGS);
        assertThat(OpenAiOperation.at(deployment + "embeddings", deployment.length() - 1))
                .isNull();
    }

    @Test
    void anythingElseUnderThePrefixIsNoOperation() {
        assertThat(OpenAiOperation.at("/v1/chat/completionsX", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/chat/completion", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/xchat/completions", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/responses/resp_123", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/models", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1", "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v2/chat/completions", "/v1/")).isNull();
        assertThat(OpenAiOperation.at(null, "/v1/")).isNull();
        assertThat(OpenAiOperation.at("/v1/chat/completions", null)).isNull();
    }
}
