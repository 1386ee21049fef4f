"""Default orderings sort by the model's own columns: a query that asks for no order joins no other table."""
from __future__ import annotations

import pytest
from django.apps import apps

MODELS = [model for app in ("annotation", "ranking") for model in apps.get_app_config(app).get_models()]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_a_default_ordered_query_joins_nothing(model):
    sql = str(model.objects.all().query)
    assert " JOIN " not in sql, f"{model.__name__}'s Meta.ordering follows a relation: {model._meta.ordering}"
