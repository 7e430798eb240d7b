import Foundation

// Sectioned results are observed through their sorted results: each change of the results is mapped onto the
// sections before and after it (`SectionedChangeSet`), so delivery, key paths and `write(withoutNotifying:)` work as
// for `Results.observe`.

extension SectionedResults {
    /// Calls `block` with the initial sections and after every commit that changes them (see
    /// `RealmSectionedResult.observe(keyPaths:on:_:)`).
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observeSections(keyPaths: keyPaths, on: queue, only: nil) { sections, changes in
            block(SectionedResultsChange(sections, changes))
        }
    }

    /// Calls `block` on `actor`, with the sorted results resolved in a Realm confined to the actor and sectioned
    /// again there: first with the initial sections, then after every commit that changes them.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void
    ) async -> NotificationToken {
        let keyBlock = UncheckedBox(self.keyBlock)  // called only on the actor, by the sections made there
        return await ActorObservation.observe(
            results, realm: realm, on: actor, isolation: _isolation, block
        ) { live, deliver in
            SectionedResults(results: live, keyBlock: keyBlock.value).observe(keyPaths: keyPaths, on: nil, deliver)
        }
    }

    /// Observes the sorted results and hands `deliver` the sections (in the Realm the results are delivered in) with
    /// nil for the initial call, then each change's index paths. With `only`, just that key's section is reported, and
    /// changes that touch nothing in it are not delivered.
    func observeSections(keyPaths: [String]?, on queue: DispatchQueue?, only sectionKey: Key?,
                         _ deliver: @escaping (SectionedResults, SectionedChangeSet?) -> Void) -> NotificationToken {
        let watched = WatchedProperties(keyPaths: keyPaths)
        // On a queue the results are made again from plain values, as `Results.observe` makes them.
        let keyBlock = self.keyBlock
        let className = results.table.className
        let query = results.query.detached()
        let source = results.source
        return results.instance.addObserver(
            on: queue,
            here: { Self.observerBody(self, watched: watched, only: sectionKey, deliver) },
            there: { instance in
                guard let table = instance.table(named: className) else { return nil }
                let attached = query.attached(to: instance)
                let delivered = Results<SectionElement>(realm: instance, table: table, query: attached, source: source)
                return Self.observerBody(SectionedResults(results: delivered, keyBlock: keyBlock), watched: watched,
                                         only: sectionKey, deliver)
            })
    }

    /// The observer on the thread or queue of delivery: the sorted results' own, whose changes are mapped onto the
    /// sections (`FlatChange`, `SectionedChangeSet`). When the results' block is not called for a commit (nothing it
    /// watches changed, or the commit skipped this observer), the sections are still brought up to date: elements
    /// that changed section are reported, as Realm reports them whatever the key paths, and a skipped commit is left
    /// out of the next change, as it is for `Results`.
    static func observerBody(_ sections: SectionedResults, watched: WatchedProperties, only sectionKey: Key?,
                             _ deliver: @escaping (SectionedResults, SectionedChangeSet?) -> Void) -> ObserverBody {
        var previous: SectionLayout<Key>?
        var resultsBlockCalled = false
        // Unless the results' block asked for it (and all sections are observed), only a change that touches the
        // sections observed is delivered.
        let report = { (old: SectionLayout<Key>, new: SectionLayout<Key>, change: FlatChange, always: Bool) in
            let changes = SectionedChangeSet(from: old, to: new, change: change, only: sectionKey)
            if changes.isEmpty && !(always && sectionKey == nil) { return }
            deliver(sections, changes)
        }
        var body = Results<SectionElement>.observerBody(sections.results, watched: watched) { change in
            resultsBlockCalled = true
            switch change {
            case .initial:
                previous = sections.layout
                deliver(sections, nil)
            case .update(_, let deletions, let insertions, let modifications):
                guard let old = previous else { return }
                let new = sections.layout
                previous = new
                report(old, new, FlatChange(deletions: deletions, insertions: insertions, modifications: modifications,
                                            from: old, to: new), true)
            case .error:
                return  // Realm's sectioned changes have no error case
            }
        }
        let resultsChange = body.change
        body.change = { changes, notify, isLocal in
            resultsBlockCalled = false
            resultsChange(changes, notify, isLocal)
            guard !resultsBlockCalled, let old = previous else { return }
            let new = sections.layout
            previous = new
            guard notify else { return }
            report(old, new, FlatChange(deletions: [], insertions: [], modifications: [], from: old, to: new), false)
        }
        return body
    }
}

extension SectionedResults where SectionElement: ObjectBase {
    /// `observe(keyPaths:on:_isolation:_:)` on an actor, with the watched properties named by key paths.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<SectionElement>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension ResultsSection {
    /// Calls `block` with the initial section and after every commit that changes it: its elements, or the section
    /// itself appearing (`sectionsToInsert`) or going (`sectionsToDelete`). Index paths carry the section's index
    /// among all sections. Commits that change only other sections are not delivered.
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = sectionKey
        return parent.observeSections(keyPaths: keyPaths, on: queue, only: key) { sections, changes in
            block(SectionedResultsChange(ResultsSection(parent: sections, key: key), changes))
        }
    }

    /// Calls `block` on `actor` with this key's section of the sorted results resolved in a Realm confined to the
    /// actor, as `observe(keyPaths:on:_:)` does on a thread.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void
    ) async -> NotificationToken {
        let carried = UncheckedBox((keyBlock: parent.keyBlock, key: sectionKey))  // used only on the actor
        return await ActorObservation.observe(
            parent.results, realm: realm, on: actor, isolation: _isolation, block
        ) { live, deliver in
            let sections = SectionedResults(results: live, keyBlock: carried.value.keyBlock)
            let section = ResultsSection(parent: sections, key: carried.value.key)
            return section.observe(keyPaths: keyPaths, on: nil, deliver)
        }
    }
}

extension ResultsSection where T: ObjectBase {
    /// `observe(keyPaths:on:_isolation:_:)` on an actor, with the watched properties named by key paths.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<T>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}
