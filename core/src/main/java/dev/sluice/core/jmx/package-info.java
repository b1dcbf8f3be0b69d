/**
 * JMX view and controls of a running Sluice: MXBeans in the domain {@code dev.sluice}
 * ({@code type=Governor}, {@code type=Limit,name=<id>}, {@code type=Tenant,name=<tenant>},
 * {@code type=TrafficClass,name=<class>}, {@code type=Provider,name=<provider>}) that read the live
 * governor and tune it without a restart. Only open types cross the wire, so every console and
 * jmx_exporter renders them. {@link dev.sluice.core.jmx.SluiceMBeans} registers them, and
 * {@code type=Store} when the store is shared ({@link dev.sluice.core.jmx.StoreBean}).
 */
package dev.sluice.core.jmx;
