package dev.sluice.instrumentation.hc5.helper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.MessageHeaders;

/** The headers of HttpClient 5's messages as the governance reads them, alike for the classic and the async client. */
final class Hc5Headers {

    private Hc5Headers() {}

    /** A message's headers by name, values in order. */
    static Map<String, List<String>> of(MessageHeaders message) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (Header header : message.getHeaders()) {
            List<String> values = map.get(header.getName());
            if (values == null) {
                values = new ArrayList<>(1);
                map.put(header.getName(), values);
            }
            values.add(header.getValue());
        }
        return map;
    }

    /** A request's headers, with the content type its entity carries when no header names one. */
    static Map<String, List<String>> ofRequest(HttpRequest request, ContentType contentType) {
        Map<String, List<String>> map = of(request);
        if (contentType != null && !request.containsHeader("Content-Type")) {
            List<String> one = new ArrayList<>(1);
            one.add(contentType.toString());
            map.put("Content-Type", one);
        }
        return map;
    }

    /** A content type as HttpClient parses it, or null when there is none or it cannot be read. */
    static ContentType contentType(String value) {
        if (value == null) {
            return null;
        }
        try {
            return ContentType.parse(value);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
