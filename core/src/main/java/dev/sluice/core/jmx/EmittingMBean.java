package dev.sluice.core.jmx;

import javax.management.ListenerNotFoundException;
import javax.management.MBeanInfo;
import javax.management.MBeanNotificationInfo;
import javax.management.NotificationBroadcasterSupport;
import javax.management.NotificationEmitter;
import javax.management.NotificationFilter;
import javax.management.NotificationListener;

/** A {@link DescribedMBean} that also sends notifications, through its bean's broadcaster. */
final class EmittingMBean<T> extends DescribedMBean<T> implements NotificationEmitter {

    private final NotificationBroadcasterSupport emitter;

    EmittingMBean(T implementation, Class<T> type, Runnable beforeAccess, NotificationBroadcasterSupport emitter) {
        super(implementation, type, beforeAccess);
        this.emitter = emitter;
    }

    @Override
    public void addNotificationListener(NotificationListener listener, NotificationFilter filter, Object handback) {
        emitter.addNotificationListener(listener, filter, handback);
    }

    @Override
    public void removeNotificationListener(NotificationListener listener) throws ListenerNotFoundException {
        emitter.removeNotificationListener(listener);
    }

    @Override
    public void removeNotificationListener(NotificationListener listener, NotificationFilter filter, Object handback)
            throws ListenerNotFoundException {
        emitter.removeNotificationListener(listener, filter, handback);
    }

    /** The bean's description with the notifications it sends, so consoles list them. */
    @Override
    public MBeanInfo getMBeanInfo() {
        MBeanInfo info = super.getMBeanInfo();
        if (info.getNotifications().length > 0) {
            return info;
        }
        return new MBeanInfo(
                info.getClassName(),
                info.getDescription(),
                info.getAttributes(),
                info.getConstructors(),
                info.getOperations(),
                emitter.getNotificationInfo(),
                info.getDescriptor());
    }

    @Override
    public MBeanNotificationInfo[] getNotificationInfo() {
        return emitter.getNotificationInfo();
    }
}
