"""The form that starts an analysis."""
from django import forms

from annotation.number_fields import PlainFloatField, PlainIntegerField

from .core.parameters import MAX_ACCURACY_FOLDS, MAX_BOOTSTRAP, MAX_SEED, AnalysisParameters


class AnalysisForm(forms.Form):
    bootstrap = PlainIntegerField(
        min_value=100, max_value=MAX_BOOTSTRAP, initial=1000, help_text="Samples per method."
    )
    confidence = PlainFloatField(min_value=0.5, max_value=0.999, initial=0.95, help_text="Of the rank ranges.")
    seed = PlainIntegerField(min_value=0, max_value=MAX_SEED, initial=1)
    accuracy_folds = PlainIntegerField(
        min_value=0, max_value=MAX_ACCURACY_FOLDS, initial=0, required=False,
        help_text="G15 Table 4: how well each ranking method predicts judgments it did not see, by cross-validation "
        "with this many folds (G15 used 100). Slow: every fold ranks the systems again, minutes on a large campaign. "
        "0 skips it.",
    )

    def clean_accuracy_folds(self) -> int:
        folds = self.cleaned_data.get("accuracy_folds") or 0
        if folds == 1:
            raise forms.ValidationError("Cross-validation needs at least 2 folds; 0 skips it.")
        return folds

    def parameters(self) -> AnalysisParameters:
        data = self.cleaned_data
        return AnalysisParameters(
            bootstrap=data["bootstrap"], confidence=data["confidence"], seed=data["seed"],
            accuracy_folds=data["accuracy_folds"],
        )

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                self.parameters()
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from None
        return data
