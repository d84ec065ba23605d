"""Contacts that can let go (docs/contact.md): unilateral contacts, Coulomb friction with stick and slip (also in
joints), impacts.

* ``geometry``: contact shapes from the bodies' geometry, gap functions, contact points and normals, the rows of a
  contact point (closed-form, with their derivatives);
* ``lcp``: Lemke's method for the linear complementarity problems of impacts;
* ``contacts``: the model's contact points (row contacts of the cam and rolling-disk elements, contact pairs) and
  the constrained system of one contact mode;
* ``joint_friction``: the relative coordinate and the load of a joint with Coulomb friction;
* ``modes``: the choice of the mode at a state, the impact map (Newton's restitution law), the event functions.

The event-driven run that uses them is ``mechstudio.core.run.events``.
"""
