package dev.sluice.core.provider;

/**
 * Reads an organization a provider names (in a response header, a request header or the config)
 * into the form scopes key on: trimmed, at most 100 characters of letters, digits and {@code -_.:},
 * or null when there is none or it is not an identifier (a garbled header must not create a scope
 * per garbage value).
 */
public final class Organizations {

    private static final int MAX_LENGTH = 100;

    private Organizations() {}

    /** The organization named, or null. */
    public static String named(String raw) {
        if (raw == null) {
            return null;
        }
        String s = raw.trim();
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || c >= '0' && c <= '9'
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == ':';
            if (!ok) {
                return null;
            }
        }
        return s;
    }

    /** An organization and, when named, its project, as scopes key on them: {@code org/project}. */
    public static String withProject(String organization, String project) {
        String org = named(organization);
        String proj = named(project);
        if (org == null) {
            return null;
        }
        return proj == null ? org : org + '/' + proj;
    }
}
