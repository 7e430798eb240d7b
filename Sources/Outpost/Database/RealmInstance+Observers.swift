/// Attaching the observers of an instance's write transactions (CommitObserver.swift) and reads (ReadObserver.swift).
extension RealmInstance {
    /// Attaches an observer of this instance's write transactions. It is told of each hook after the observers
    /// attached before it, or, with `first`, before them: the upload recorder goes first, since its
    /// ``CommitObserver/transactionWillCommit(_:in:)`` may fail the commit or write to it, and the others capture the
    /// transaction as it is committed. An observer that is also a ``ReadObserver`` becomes the instance's read
    /// observer (there is one at most).
    func attach(_ observer: any CommitObserver, first: Bool = false) {
        if first {
            commitObservers.insert(observer, at: 0)
        } else {
            commitObservers.append(observer)
        }
        if let reader = observer as? any ReadObserver {
            precondition(readObserver == nil, "A Realm instance has one read observer at most.")
            readObserver = reader
        }
    }

    /// Detaches an observer attached with ``attach(_:first:)`` (and so the read observer, if it is that one).
    func detach(_ observer: any CommitObserver) {
        commitObservers.removeAll { $0 === observer }
        if let reader = readObserver, reader === observer { readObserver = nil }
    }

    /// The attached observer of type `Observer`, if any (a list of one or two, searched in order).
    func observer<Observer: CommitObserver>(of type: Observer.Type) -> Observer? {
        for attached in commitObservers {
            if let match = attached as? Observer { return match }
        }
        return nil
    }
}
