// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The one way a worker thread (trainer, lesson demo) hands a call to the GUI
// thread: post() wraps the call in an event and posts it to this object, whose
// thread (the one that created it) runs it later, in posting order. A call
// still queued when the object is destroyed is dropped unrun, so the owner
// must join its workers first (then own this object as a member declared
// before the worker threads, or as a child).
//
// ThreadSanitizer: Qt's event queue orders everything the worker did before
// postEvent() before the call runs, but Debian's Qt is not instrumented and
// its QMutex is futex-based, so TSan cannot see that order and reports the
// call's captured data as racing. In TSan builds each event carries that edge
// explicitly: __tsan_release on the event before it is posted, __tsan_acquire
// on the same event first thing when it runs or is dropped. Per event, so it
// orders one post before its own delivery and nothing else: a race between
// the worker's later work and the GUI thread is still reported.

#include <QCoreApplication>
#include <QEvent>
#include <QObject>

#include <functional>
#include <utility>

#if defined(__SANITIZE_THREAD__)
#define MANTISSA_TSAN_HANDOFF 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MANTISSA_TSAN_HANDOFF 1
#endif
#endif
#if defined(MANTISSA_TSAN_HANDOFF)
#include <sanitizer/tsan_interface.h>
#endif

namespace mantissa::ui {

class ThreadHandoff : public QObject {
public:
  using QObject::QObject;

  // Any thread: runs `call` on this object's thread.
  void post(std::function<void()> call) {
    auto* event = new Call(std::move(call));
#if defined(MANTISSA_TSAN_HANDOFF)
    __tsan_release(event);
#endif
    QCoreApplication::postEvent(this, event);
  }

protected:
  bool event(QEvent* e) override {
#if defined(MANTISSA_TSAN_HANDOFF)
    __tsan_acquire(e); // before reading even its type (any event: a no-op unless posted here)
#endif
    if (e->type() != Call::type())
      return QObject::event(e);
    static_cast<Call*>(e)->run();
    return true;
  }

private:
  class Call : public QEvent {
  public:
    explicit Call(std::function<void()> call) : QEvent(type()), m_call(std::move(call)) {}
    ~Call() override {
#if defined(MANTISSA_TSAN_HANDOFF)
      __tsan_acquire(this); // dropped unrun: m_call's captures die on this thread
#endif
    }
    void run() const {
      if (m_call)
        m_call();
    }
    static QEvent::Type type() {
      static const auto kType = QEvent::Type(QEvent::registerEventType());
      return kType;
    }

  private:
    std::function<void()> m_call;
  };
};

} // namespace mantissa::ui
