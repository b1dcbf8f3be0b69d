package dev.sluice.simulator.limit;

import dev.sluice.simulator.Scope;

/**
 * Who a request belongs to, from which each limit picks the part its {@link Scope} shares buckets
 * by.
 *
 * @param apiKey the API key as sent
 * @param organization the organization (header or key mapping)
 * @param model the model the request names
 */
public record ScopeKeys(String apiKey, String organization, String model) {

    String valueFor(Scope scope) {
        switch (scope) {
            case API_KEY:
                return "key:" + apiKey;
            case API_KEY_AND_MODEL:
                return "key:" + apiKey + "/model:" + model;
            case ORGANIZATION:
                return "org:" + organization;
            case GLOBAL:
            default:
                return "global";
        }
    }
}
