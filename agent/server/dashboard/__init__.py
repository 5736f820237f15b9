"""The learner dashboard: pages at ``/dashboard``, a JSON API and live notes at ``/dashboard/api``."""
