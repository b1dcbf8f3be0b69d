package dev.sluice.core.jmx;

import java.lang.reflect.Method;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.ReflectionException;
import javax.management.StandardMBean;

/**
 * An MXBean whose attributes and operations carry the {@link Description}s of its interface, so
 * consoles explain them, and which lets the registry bring the set of beans up to date before
 * each access (new tenants, providers, learned limits appear as they are read).
 */
class DescribedMBean<T> extends StandardMBean {

    private final Class<T> type;
    private final Runnable beforeAccess;

    DescribedMBean(T implementation, Class<T> type, Runnable beforeAccess) {
        super(implementation, type, true);
        this.type = type;
        this.beforeAccess = beforeAccess;
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        Description d = type.getAnnotation(Description.class);
        return d != null ? d.value() : info.getDescription();
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        Method getter = method((info.isIs() ? "is" : "get") + info.getName(), 0);
        Description d = getter == null ? null : getter.getAnnotation(Description.class);
        return d != null ? d.value() : info.getName();
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        Method m = method(info.getName(), info.getSignature().length);
        Description d = m == null ? null : m.getAnnotation(Description.class);
        return d != null ? d.value() : info.getName();
    }

    @Override
    protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        Method m = method(op.getName(), op.getSignature().length);
        Description d = m == null ? null : m.getAnnotation(Description.class);
        return d != null && sequence < d.params().length ? d.params()[sequence] : param.getName();
    }

    private Method method(String name, int parameters) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == parameters) {
                return m;
            }
        }
        return null;
    }

    @Override
    public Object getAttribute(String attribute)
            throws AttributeNotFoundException, MBeanException, ReflectionException {
        beforeAccess.run();
        return super.getAttribute(attribute);
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        beforeAccess.run();
        return super.getAttributes(attributes);
    }

    @Override
    public void setAttribute(Attribute attribute)
            throws AttributeNotFoundException, InvalidAttributeValueException, MBeanException, ReflectionException {
        beforeAccess.run();
        super.setAttribute(attribute);
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        beforeAccess.run();
        return super.setAttributes(attributes);
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature)
            throws MBeanException, ReflectionException {
        beforeAccess.run();
        return super.invoke(actionName, params, signature);
    }
}
