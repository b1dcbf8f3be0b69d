package dev.sluice.simulator.server;

import dev.sluice.simulator.protocol.ProviderProtocol;
import dev.sluice.simulator.protocol.ProviderRequest;
import java.util.List;
import java.util.Map;

/**
 * How the simulator tells who a request belongs to and what it asks of the simulator itself.
 *
 * @param tenantHeaders headers naming the tenant, first present wins (Sluice strips its own
 *     {@code X-Sluice-*} headers before the wire, so test apps send a plain one too)
 * @param callIdHeader the header carrying a logical call id, counted as attempts
 * @param organizationHeader the header naming the organization
 * @param organizationsByKey organizations of API keys, used when the header is absent
 * @param defaultOrganization the organization of everything else
 * @param forceHeader the header by which a request asks for faults (comma-separated names)
 * @param keyIsItsOwnOrganization whether a key not mapped is an organization of its own (as with a
 *     real provider) rather than a member of {@code defaultOrganization}
 * @param announceOrganization whether every answer names the organization in the profile's header
 *     ({@code openai-organization}, {@code anthropic-organization-id})
 */
public record Identification(
        List<String> tenantHeaders,
        String callIdHeader,
        String organizationHeader,
        Map<String, String> organizationsByKey,
        String defaultOrganization,
        String forceHeader,
        boolean keyIsItsOwnOrganization,
        boolean announceOrganization) {

    public Identification {
        tenantHeaders = List.copyOf(tenantHeaders);
        organizationsByKey = Map.copyOf(organizationsByKey);
    }

    String tenant(ProviderRequest request) {
        for (String name : tenantHeaders) {
            String value = request.header(name);
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    String callId(ProviderRequest request) {
        return request.header(callIdHeader);
    }

    String organization(ProviderRequest request, String apiKey, ProviderProtocol protocol) {
        String value = organizationHeader == null ? null : request.header(organizationHeader);
        if (value != null && !value.isBlank()) {
            return value;
        }
        String mapped = organizationsByKey.get(apiKey);
        if (mapped != null) {
            return mapped;
        }
        return keyIsItsOwnOrganization ? protocol.organizationOf(apiKey) : defaultOrganization;
    }
}
